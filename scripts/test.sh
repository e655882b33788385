#!/usr/bin/env bash
# Runs every test of the repository, the way CI does: the Go tests of every
# module under -race, every fuzz target for 10s, the generated-code drift check, the official conformance
# suite, real client SDKs against a generated server, and the benchmark smoke
# run. Each part installs what it needs. Prints one line per part and a final
# "N passed, N failed" line; exits non-zero when any part fails.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

passed=0
failed=0
failures=()

part() {
	local name=$1
	shift
	echo
	echo "=== $name"
	local start=$SECONDS
	if "$@"; then
		passed=$((passed + 1))
		echo "--- ok   $name ($((SECONDS - start))s)"
	else
		failed=$((failed + 1))
		failures+=("$name")
		echo "--- FAIL $name ($((SECONDS - start))s)"
	fi
}

gofmt_clean() {
	local out
	out=$(gofmt -l $(git ls-files '*.go' | grep -v '^testdata/' | grep -v '/testdata/'))
	[ -z "$out" ] || { echo "gofmt would change:"; echo "$out"; return 1; }
}

go_module() { # go_module DIR: vet and test one module under -race
	(cd "$1" && go vet ./... && go test -race -count=1 -timeout 20m ./...)
}

part "gofmt" gofmt_clean
part "go test (main module)" go_module "$root"
for mod in interop bench redisstore otel oauth; do
	[ -f "$mod/go.mod" ] && part "go test ($mod module)" go_module "$root/$mod"
done
part "fuzz targets (10s each)" bash scripts/fuzz.sh
part "soak: abandoned and abusive clients (about 30s)" go test -count=1 -run '^TestSoak$' ./runtime -soak
part "generated code is up to date" bash scripts/check-generated.sh
part "conformance suite (2025-11-25 and 2026-07-28)" bash scripts/conformance.sh
part "real client SDKs" bash interop/run.sh
part "skills extension (conformance scenarios, real clients)" bash scripts/skills.sh
part "authorization (real authorization server and clients)" bash authtest/run.sh
part "MCP Apps in headless Chromium, and the basic-vanillajs port" bash apptest/run.sh
part "benchmark smoke run" bash bench/smoke.sh
[ -f redisstore/test.sh ] && part "three replicas on Redis" bash redisstore/test.sh

echo
for f in "${failures[@]}"; do echo "failed: $f"; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
