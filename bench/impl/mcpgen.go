package impl

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/bench/mcpgentools"
	"github.com/mcpgen/mcpgen/redisstore"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/redis/go-redis/v9"
)

func init() {
	register(Impl{Name: "mcpgen", New: newMCPGen, Modern: true, Elicit: true, Sessions: true})
}

// newMCPGen serves the tools generated from mcpgentools/schemas with the
// runtime's defaults (input validation on, logging discarded), except that
// the session count is unbounded: W4 holds 10,000 idle sessions beside the
// sessions of the other workloads, past the default MaxSessions.
func newMCPGen() (http.Handler, error) {
	h, _, err := NewMCPGen(MCPGenOptions{})
	return h, err
}

// MCPGenOptions is what the mcpgen server may do beyond the defaults every
// implementation runs with.
type MCPGenOptions struct {
	// RedisAddr, when set, keeps sessions and events in that Redis and
	// routes answers and fallback messages through it (redisstore), as one
	// replica of a deployment does.
	RedisAddr string
	// RedisCluster, when set, does the same on the Redis Cluster these
	// nodes belong to (a go-redis cluster client).
	RedisCluster []string
	// Prefix is the Redis key prefix; "" means redisstore's default.
	Prefix string
	// KeepAlive is the runtime's keep-alive interval; 0 means its default.
	KeepAlive time.Duration
	// Heartbeat is the store's heartbeat (redisstore.Options.Heartbeat); 0
	// means its default. Workload R sets it past its run: the heartbeat is
	// the replica's cost, one round trip a second however many sessions it
	// holds, and R counts what sessions cost.
	Heartbeat time.Duration
}

// NewMCPGen builds the mcpgen server; the function it returns closes it and
// releases what it holds (its Redis connections).
func NewMCPGen(o MCPGenOptions) (http.Handler, func(), error) {
	opts := runtime.Options{Name: "bench-mcpgen", Version: "0.1.0", MaxSessions: -1, KeepAlive: o.KeepAlive}
	release := func() {} // the store and its client, when on Redis
	if o.RedisAddr != "" || len(o.RedisCluster) > 0 {
		var rdb redis.UniversalClient
		if len(o.RedisCluster) > 0 {
			rdb = redis.NewClusterClient(&redis.ClusterOptions{Addrs: o.RedisCluster, ContextTimeoutEnabled: true, PoolSize: 64,
				DisableIdentity: true})
		} else {
			rdb = redis.NewClient(&redis.Options{Addr: o.RedisAddr, ContextTimeoutEnabled: true, PoolSize: 64,
				DisableIdentity: true}) // a new connection is one round trip (HELLO)
		}
		store, err := redisstore.New(context.Background(), rdb, redisstore.Options{Prefix: o.Prefix, Heartbeat: o.Heartbeat})
		if err != nil {
			rdb.Close()
			return nil, nil, fmt.Errorf("redisstore: %w", err)
		}
		store.Configure(&opts)
		// Replicas of one benchmark share the key that seals 2026-07-28
		// requestState (the runtime refuses shared sessions without one).
		opts.StateKey = []byte("mcpgen benchmark replicas' state key")
		release = func() { store.Close(); rdb.Close() }
	}
	srv := runtime.NewServer(opts)
	if err := mcpgentools.Register(srv, mcpgentools.Tools{}); err != nil {
		release()
		return nil, nil, err
	}
	return srv, func() { srv.Close(); release() }, nil
}
