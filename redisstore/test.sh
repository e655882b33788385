#!/usr/bin/env bash
# Runs the redisstore tests against real Redis deployments on loopback, each
# started here on free ports in a temporary directory and always stopped:
#
#   bash redisstore/test.sh single     one redis-server: every test (three replica
#                                      processes on it, and the tests that start a
#                                      private server: outage, pause, round-trip
#                                      counts, event bytes), then the benchmark once
#   bash redisstore/test.sh cluster    a Redis Cluster of three primaries: every test
#                                      that uses the shared deployment, the
#                                      resharding test among them, but the slow
#                                      ones of a replica dying or idling
#   bash redisstore/test.sh sentinel   a primary, a replica and three sentinels: the
#                                      failover test and the three-replica core
#   bash redisstore/test.sh valkey     one valkey-server (Debian bookworm-backports):
#                                      the same tests as on the cluster
#
# Extra arguments go to go test. redis-server is installed with apt-get
# when missing (root only), valkey-server from bookworm-backports through a
# temporary apt configuration (the system's sources are not changed).
set -euo pipefail
cd "$(dirname "$0")"
shape=${1:-single}
[ $# -gt 0 ] && shift

need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "$1 is missing and installing it needs root" >&2
		exit 1
	fi
}

if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
	need_root redis-server
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends redis-server redis-tools >/dev/null
fi

# install_valkey fetches valkey-server and valkey-tools from Debian's
# bookworm-backports (Debian 12 itself has no Valkey), from the mirror the
# system's sources name, with an apt configuration of its own, and
# installs them with their dependencies from the system's sources.
install_valkey() {
	need_root valkey-server
	# The mirror the system's own sources name for Debian itself.
	local mirror
	mirror=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
	if [ -z "$mirror" ]; then
		mirror=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
	fi
	if [ -z "$mirror" ]; then
		echo "no Debian mirror in the apt sources: cannot fetch valkey-server from bookworm-backports" >&2
		exit 1
	fi
	local apt
	apt=$(mktemp -d)
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs"
	cat >"$apt/backports.sources" <<-EOF
		Types: deb
		URIs: $mirror
		Suites: bookworm-backports
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	local opts=(-o "Dir::Etc::sourcelist=$apt/backports.sources" -o Dir::Etc::sourceparts=/dev/null
		-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root)
	apt-get "${opts[@]}" update -qq
	(cd "$apt/debs" && apt-get "${opts[@]}" download valkey-server valkey-tools)
	export DEBIAN_FRONTEND=noninteractive
	# Its dependencies are redis-server's: the system's lists have them once
	# redis-server is installed; read them again only if they do not.
	if ! apt-get install -y -qq --no-install-recommends "$apt"/debs/*.deb >/dev/null 2>&1; then
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "$apt"/debs/*.deb >/dev/null
	fi
	rm -rf "$apt"
}

deploy_server=$(command -v redis-server)
deploy_cli=$(command -v redis-cli)
if [ "$shape" = valkey ]; then
	command -v valkey-server >/dev/null 2>&1 || install_valkey
	deploy_server=$(command -v valkey-server)
	deploy_cli=$(command -v valkey-cli)
fi

deploy_dir=$(mktemp -d)
# shellcheck source=deploy.sh
source ./deploy.sh
trap 'deploy_stop_all; rm -rf "$deploy_dir"' EXIT

# The tests that start a private redis-server of their own
# (MCPGEN_REDIS_SERVER): they do not depend on the shape, so only the
# single run has them.
private='^(TestRedisOutage|TestRedisPausedBoundsEveryCall|TestRoundTripsPerOperation|TestSessionEventBytesAreBounded|TestTaskStoreOutageIsUnavailable)$'
# The slow tests of what replicas do when one of them dies or idles: the
# deployment's shape changes nothing in them (its keys are the same as in
# the core's), so only the single run has them too.
replica_only='^(TestIdleOnOneReplicaIsNotIdleEverywhere|TestKilledReplicaEndsItsCallsWithErrors|TestTaskOfKilledReplicaFails|TestStoppedReplicaLeavesItsSessionsToTheOthers)$'
# The core of the three-replica tests, with the store's own: answers,
# fallbacks, deletion, cancellation, changes, events, tasks.
core='^(TestSentinelFailoverDuringTraffic|TestThreeReplicasServeOneSession|TestFallbackReachesTheGETStreamOnAnotherReplica|TestDeleteOnOneReplicaIs404OnAll|TestCancelReachesTheReplicaRunningTheCall|TestChangesReachTheGETStreamOnAnotherReplica|TestStreamReplaysOnAnyReplicaAndOnlyForItsSession|TestLegacyTaskCrossesThreeReplicas|TestAnswersAreRoutedToTheWaitingReplica|TestExpiredAndGoneRequestsAreExpiredEverywhere|TestBusCrossesReplicasAndClosesOnDelete|TestEventsReplayOnAnyReplica|TestSessionsAreSharedAndDeletedEverywhere)$'

selection=()
case "$shape" in
single) start_single ;;
cluster)
	start_cluster
	selection=(-skip "${private%)\$}|${replica_only#^(}")
	;;
sentinel)
	start_sentinel
	selection=(-run "$core")
	;;
valkey)
	start_single
	selection=(-skip "${private%)\$}|${replica_only#^(}")
	;;
*)
	echo "usage: test.sh [single|cluster|sentinel|valkey] [go test flags]" >&2
	exit 2
	;;
esac
export MCPGEN_REDIS_SERVER="$deploy_server"

# vet once, with the run that has every test
[ "$shape" = single ] && go vet ./...
go test -race -count=1 -timeout 15m "${selection[@]}" "$@" ./...
if [ "$shape" = single ]; then
	# The benchmark once, briefly and without -race, so CI shows the figures.
	go test -run "^$" -bench . -benchtime 200x -count=1 .
fi
