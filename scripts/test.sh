#!/usr/bin/env bash
# Runs every test of the repository, the way CI does: the Go tests of every
# module under -race, every fuzz target (the changed ones longer), a soak
# test, the generated-code drift check, the official conformance suite, real
# client SDKs against a generated server, real browsers, real Redis
# deployments, and the benchmark smoke run. Each part installs what it
# needs (npm packages; redis-server and the like with apt-get, which needs
# root), so it needs the package registries.
#
# Prints a line when each stage starts, a progress line every 30s while one
# runs, and its wall and CPU time when it ends; then the stages' times and
# a "N passed, N failed in WALL, CPU" line. Exits non-zero when any stage
# fails. The CPU time is user+sys of the stage's processes (bash's times,
# which counts every process a stage waited for). See the README for how
# long it takes.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# A binary built with -race sleeps a second as it exits (the race
# runtime's atexit_sleep_ms): every test binary and every replica process
# the tests start would pay it. Reports of races are unchanged.
export GORACE="${GORACE:-atexit_sleep_ms=0}"

# heartbeat is the interval of the progress lines of a running stage.
heartbeat=${TEST_HEARTBEAT:-30}

passed=0
failed=0
failures=()
stages=()
script_start=$(date +%s)
beat_pid=""
times_file=$(mktemp "${TMPDIR:-/tmp}/mcpgen-test-times.XXXXXX")
trap '[ -n "$beat_pid" ] && kill "$beat_pid" 2>/dev/null; rm -f "$times_file"' EXIT

# cpu_ms sets cpu_now to "USER SYS", the CPU milliseconds this shell and every process it
# has waited for used so far. bash's times prints them; it runs in this
# shell (never inside $(...), whose subshell counts from zero), and awk
# reads what it printed.
cpu_ms() {
	times >"$times_file"
	cpu_now=$(awk '{ for (i = 1; i <= NF; i++) { split($i, a, "m"); sub("s$", "", a[2]); t[i] += (a[1] * 60 + a[2]) * 1000 } }
		END { printf "%d %d\n", t[1], t[2] }' "$times_file")
}

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
	local status=0 cpu cpu_before cpu_now
	cpu_ms
	cpu_before=$cpu_now
	"$@" || status=$?
	kill "$beat_pid" 2>/dev/null
	wait "$beat_pid" 2>/dev/null
	beat_pid=""
	cpu_ms
	local took
	took=$(duration $(($(date +%s) - start)))
	cpu=$(cpu_seconds "$cpu_before" "$cpu_now")
	if [ "$status" -eq 0 ]; then
		passed=$((passed + 1))
		echo "--- ok   $name ($took, ${cpu}s CPU)"
	else
		failed=$((failed + 1))
		failures+=("$name")
		echo "--- FAIL $name ($took, ${cpu}s CPU)"
	fi
	stages+=("$(printf '%-8s %6ss CPU  %s' "$took" "$cpu" "$name")")
}

# cpu_seconds "USER SYS" "USER SYS": the user+sys seconds from the first to the second.
cpu_seconds() {
	local b=($1) a=($2)
	echo $(((a[0] + a[1] - b[0] - b[1] + 500) / 1000))
}

# need_redis installs redis-server when it is missing (apt-get, as root):
# the main module's deployment test runs replicas on it, before the Redis
# stages that would otherwise install it.
need_redis() {
	command -v redis-server >/dev/null 2>&1 && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "redis-server is missing, and installing it needs root: the main module's deployment test will fail" >&2
		return 0
	fi
	echo "installing redis-server (apt-get) for the main module's deployment test"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server redis-tools >/dev/null
}

gofmt_clean() {
	local out
	out=$(gofmt -l $(git ls-files '*.go' | grep -v '^testdata/' | grep -v '/testdata/'))
	[ -z "$out" ] || { echo "gofmt would change:"; echo "$out"; return 1; }
}

go_module() { # go_module DIR: vet and test one module under -race; go test prints a line per package with its time
	(
		cd "$1" || exit 1
		echo "go vet ./..."
		go vet ./... || exit 1
		echo "go test -race ./... (a line per package as it finishes; the slowest take a minute or more)"
		go test -race -count=1 -timeout 20m ./...
	)
}

echo "scripts/test.sh: see the README for its time. A stage passes or fails as a whole: lines"
echo "inside one that read \"note (the SDK's own log, no call failed)\" are what a client SDK logged, explained."

part "gofmt" gofmt_clean
need_redis
part "go test (main module)" go_module "$root"
# redisstore's tests run in its Redis stages below (vet and every test with
# a real Redis); run here they would only skip.
for mod in interop bench otel oauth; do
	[ -f "$mod/go.mod" ] && part "go test ($mod module)" go_module "$root/$mod"
done
part "fuzz targets (changed since ${FUZZ_BASE-main}: ${FUZZTIME_CHANGED:-20s} each, the rest ${FUZZTIME:-4s})" bash scripts/fuzz.sh
# Without -race, as the soak is written: its bounds are scaled down to
# seconds, which the race detector's slowdown runs past. A soak that hangs
# ends at its timeout.
part "soak: abandoned and abusive clients (about a minute)" go test -count=1 -timeout 5m -run '^TestSoak$' ./runtime -soak
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
echo "stage times (wall, then CPU: user+sys):"
for s in "${stages[@]}"; do echo "  $s"; done
for f in "${failures[@]}"; do echo "failed: $f"; done
cpu_ms
read -r user sys <<<"$cpu_now"
echo "$passed passed, $failed failed in $(duration $(($(date +%s) - script_start))), $(((user + sys + 500) / 1000))s CPU (user $(((user + 500) / 1000))s, sys $(((sys + 500) / 1000))s)"
[ "$failed" -eq 0 ]
