#!/usr/bin/env bash
# Runs every test of the repository, the way CI does: the Go tests of every
# module under -race, every fuzz target for 10s, the generated-code drift check, the official conformance
# suite, real client SDKs against a generated server, and the benchmark smoke
# run. Each part installs what it needs (npm packages, and redis-server with
# apt-get, which needs root), so it needs the package registries.
#
# Prints a line when each stage starts, a progress line every 30s while one
# runs, and its time when it ends; then a "N passed, N failed" line. Exits
# non-zero when any stage fails. About 15 minutes on 2 cores.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# heartbeat is the interval of the progress lines of a running stage.
heartbeat=${TEST_HEARTBEAT:-30}

passed=0
failed=0
failures=()
stages=()
script_start=$(date +%s)
beat_pid=""
trap '[ -n "$beat_pid" ] && kill "$beat_pid" 2>/dev/null' EXIT

# duration SECONDS: "75s" or "1m15s".
duration() {
	local s=$1
	if [ "$s" -ge 60 ]; then echo "$((s / 60))m$((s % 60))s"; else echo "${s}s"; fi
}

# part NAME COMMAND...: one stage. While it runs, a line every $heartbeat
# seconds says it still does, so that a silent stretch (a package's tests,
# a Redis restart) does not look like a hang.
part() {
	local name=$1
	shift
	local start
	start=$(date +%s)
	echo
	echo "=== $name (started at $(duration $((start - script_start))))"
	(
		trap 'kill "$nap" 2>/dev/null; exit 0' TERM
		while :; do
			sleep "$heartbeat" &
			nap=$!
			wait "$nap"
			echo "    ... $name: still running, $(duration $(($(date +%s) - start)))"
		done
	) 2>/dev/null &
	beat_pid=$!
	local status=0
	"$@" || status=$?
	kill "$beat_pid" 2>/dev/null
	wait "$beat_pid" 2>/dev/null
	beat_pid=""
	local took
	took=$(duration $(($(date +%s) - start)))
	if [ "$status" -eq 0 ]; then
		passed=$((passed + 1))
		echo "--- ok   $name ($took)"
	else
		failed=$((failed + 1))
		failures+=("$name")
		echo "--- FAIL $name ($took)"
	fi
	stages+=("$(printf '%-8s %s' "$took" "$name")")
}

gofmt_clean() {
	local out
	out=$(gofmt -l $(git ls-files '*.go' | grep -v '^testdata/' | grep -v '/testdata/'))
	[ -z "$out" ] || { echo "gofmt would change:"; echo "$out"; return 1; }
}

go_module() { # go_module DIR: vet and test one module under -race; go test prints a line per package
	(
		cd "$1" || exit 1
		echo "go vet ./..."
		go vet ./... || exit 1
		echo "go test -race ./... (a line per package as it finishes; the slowest take a minute or more)"
		go test -race -count=1 -timeout 20m ./...
	)
}

echo "scripts/test.sh: about 15 minutes on 2 cores. A stage passes or fails as a whole: lines"
echo "inside one that read \"note (the SDK's own log, no call failed)\" are what a client SDK logged, explained."

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
part "events: webhook signatures checked by standardwebhooks (npm)" bash ext/events/interop/run.sh
part "server cards: read cross-origin by headless Chromium (about 40s)" bash ext/servercard/interop/run.sh
part "authorization (real authorization server and clients)" bash authtest/run.sh
part "MCP Apps in headless Chromium, and the basic-vanillajs port" bash apptest/run.sh
# The Redis stages install redis-server when missing (Valkey from Debian's
# backports); each starts its deployment on loopback and stops it. The
# benchmark smoke run, after them, also runs mcpgen on Redis.
if [ -f redisstore/test.sh ]; then
	part "three replicas on Redis" bash redisstore/test.sh single
	part "three replicas on a Redis Cluster (resharding included)" bash redisstore/test.sh cluster
	part "three replicas on Redis Sentinel (a failover)" bash redisstore/test.sh sentinel
	part "three replicas on Valkey" bash redisstore/test.sh valkey
fi
part "benchmark smoke run" bash bench/smoke.sh

echo
echo "stage times:"
for s in "${stages[@]}"; do echo "  $s"; done
for f in "${failures[@]}"; do echo "failed: $f"; done
echo "$passed passed, $failed failed in $(duration $(($(date +%s) - script_start)))"
[ "$failed" -eq 0 ]
