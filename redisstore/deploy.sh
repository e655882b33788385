# Starts the Redis deployments the redisstore tests run on, each on free
# loopback ports in a directory of its own under $deploy_dir: one server, a
# Redis Cluster of three primaries, or a primary with one replica and three
# sentinels. Sourced by test.sh; every process it starts is recorded in
# $deploy_pids and stopped by deploy_stop_all.
#
# Each start_* function exports the variable the tests' client factory reads
# (MCPGEN_REDIS_ADDR, MCPGEN_REDIS_CLUSTER, MCPGEN_REDIS_SENTINEL) and unsets
# the others, so exactly one shape is selected.

deploy_pids=()

# free_port prints a loopback TCP port nobody listens on right now.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# wait_for SECONDS WHAT COMMAND...: runs COMMAND every 0.1s until it succeeds.
wait_for() {
	local limit=$1 what=$2
	shift 2
	local tries=$((limit * 10))
	for _ in $(seq 1 "$tries"); do
		if "$@" >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
	done
	echo "deploy: $what did not happen within ${limit}s" >&2
	return 1
}

pong() { "$deploy_cli" -h 127.0.0.1 -p "$1" ping 2>/dev/null | grep -q PONG; }

# start_server DIR PORT ARGS...: one redis-server (or sentinel, with
# --sentinel), in the foreground of a background job, logging to DIR.
start_server() {
	local dir=$1 port=$2
	shift 2
	mkdir -p "$dir"
	"$deploy_server" "$@" --bind 127.0.0.1 --port "$port" --dir "$dir" --daemonize no \
		--logfile "$dir/server.log" --protected-mode yes &
	deploy_pids+=($!)
	if ! wait_for 10 "a server on port $port" pong "$port"; then
		cat "$dir/server.log" >&2 || true
		return 1
	fi
}

select_shape() {
	unset MCPGEN_REDIS_ADDR MCPGEN_REDIS_CLUSTER MCPGEN_REDIS_SENTINEL
	export "$1=$2"
}

# start_single: one server, persisting nothing.
start_single() {
	local port
	port=$(free_port)
	start_server "$deploy_dir/single" "$port" --save '' --appendonly no || return 1
	select_shape MCPGEN_REDIS_ADDR "127.0.0.1:$port"
	echo "deploy: $(server_version) on 127.0.0.1:$port"
}

# start_cluster: three primaries, no replicas (CPU: CI has two cores), the
# slots spread over them by redis-cli --cluster create.
start_cluster() {
	local addrs=() port bus i
	for i in 1 2 3; do
		port=$(free_port)
		bus=$(free_port)
		start_server "$deploy_dir/cluster-$i" "$port" --save '' --appendonly no \
			--cluster-enabled yes --cluster-port "$bus" --cluster-config-file nodes.conf \
			--cluster-node-timeout 2000 || return 1
		addrs+=("127.0.0.1:$port")
	done
	"$deploy_cli" --cluster create "${addrs[@]}" --cluster-yes >"$deploy_dir/cluster-create.log" 2>&1 || {
		cat "$deploy_dir/cluster-create.log" >&2
		return 1
	}
	for a in "${addrs[@]}"; do
		wait_for 20 "cluster state ok on $a" cluster_ok "${a#*:}" || return 1
	done
	local joined
	joined=$(
		IFS=,
		echo "${addrs[*]}"
	)
	select_shape MCPGEN_REDIS_CLUSTER "$joined"
	echo "deploy: $(server_version) cluster of 3 primaries on $joined"
}

cluster_ok() {
	local info
	info=$("$deploy_cli" -h 127.0.0.1 -p "$1" cluster info 2>/dev/null) || return 1
	grep -q 'cluster_state:ok' <<<"$info" && grep -q 'cluster_known_nodes:3' <<<"$info"
}

# start_sentinel: a primary, its replica and three sentinels watching the
# primary as "mcpgen" (quorum 2, down after 1s, so a test's failover is
# quick).
start_sentinel() {
	local primary replica sentinels=() port i conf
	primary=$(free_port)
	replica=$(free_port)
	start_server "$deploy_dir/primary" "$primary" --save '' --appendonly no || return 1
	start_server "$deploy_dir/replica" "$replica" --save '' --appendonly no \
		--replicaof 127.0.0.1 "$primary" || return 1
	wait_for 20 "the replica in sync" replica_synced "$replica" || return 1
	for i in 1 2 3; do
		port=$(free_port)
		mkdir -p "$deploy_dir/sentinel-$i"
		conf="$deploy_dir/sentinel-$i/sentinel.conf"
		cat >"$conf" <<-EOF
			sentinel monitor mcpgen 127.0.0.1 $primary 2
			sentinel down-after-milliseconds mcpgen 1000
			sentinel failover-timeout mcpgen 10000
			sentinel parallel-syncs mcpgen 1
		EOF
		"$deploy_server" "$conf" --sentinel --bind 127.0.0.1 --port "$port" --dir "$deploy_dir/sentinel-$i" \
			--daemonize no --logfile "$deploy_dir/sentinel-$i/server.log" &
		deploy_pids+=($!)
		wait_for 10 "sentinel on port $port" pong "$port" || return 1
		sentinels+=("127.0.0.1:$port")
	done
	for s in "${sentinels[@]}"; do
		wait_for 30 "sentinel $s seeing the replica and the other sentinels" sentinel_ready "${s#*:}" || return 1
	done
	local joined
	joined=$(
		IFS=,
		echo "${sentinels[*]}"
	)
	select_shape MCPGEN_REDIS_SENTINEL "mcpgen@$joined"
	echo "deploy: $(server_version) primary 127.0.0.1:$primary, replica 127.0.0.1:$replica, sentinels $joined"
}

replica_synced() {
	"$deploy_cli" -h 127.0.0.1 -p "$1" info replication 2>/dev/null | grep -q 'master_link_status:up'
}

sentinel_ready() {
	local out
	out=$("$deploy_cli" -h 127.0.0.1 -p "$1" sentinel master mcpgen 2>/dev/null) || return 1
	# The reply alternates names and values, one a line.
	awk 'prev=="num-slaves"{s=$0} prev=="num-other-sentinels"{o=$0} {prev=$0} END{exit !(s>=1 && o>=2)}' <<<"$out"
}

server_version() { "$deploy_server" --version | sed 's/ v=\([^ ]*\).*/ \1/'; }

# deploy_stop_all stops every process started here and waits for them.
deploy_stop_all() {
	local pid
	for pid in "${deploy_pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${deploy_pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	deploy_pids=()
}
