#!/usr/bin/env bash
# Runs the redisstore tests against a real redis-server: installs it with
# apt-get when missing, starts it on a free loopback port with a temporary
# directory, runs the Go tests (three server replicas on that Redis, and a
# private Redis the restart test stops and starts), and always stops it.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v redis-server >/dev/null 2>&1; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "redis-server is missing and installing it needs root" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends redis-server >/dev/null
fi
server=$(command -v redis-server)

dir=$(mktemp -d)
pid=""
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$dir"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

for attempt in 1 2 3 4 5; do
	port=$(free_port)
	"$server" --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' --appendonly no \
		--protected-mode yes --daemonize no --logfile "$dir/redis.log" &
	pid=$!
	for _ in $(seq 1 50); do
		if redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; then
			break 2
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=""
done
if [ -z "$pid" ]; then
	echo "could not start redis-server" >&2
	cat "$dir/redis.log" >&2 || true
	exit 1
fi
echo "redis-server $("$server" --version | sed 's/.*v=\([^ ]*\).*/\1/') on 127.0.0.1:$port"

export MCPGEN_REDIS_ADDR="127.0.0.1:$port"
export MCPGEN_REDIS_SERVER="$server"
go vet ./...
go test -race -count=1 -timeout 15m "$@" ./...
# The benchmark once, briefly and without -race, so CI shows the figures.
go test -run "^$" -bench . -benchtime 200x -count=1 .
