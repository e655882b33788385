// Package redisconn names a Redis deployment in one string and makes the
// go-redis client for it, so that the tests, the replica processes they
// start and the benchmarks reach one server, a Redis Cluster or a
// Sentinel-managed primary the same way:
//
//	127.0.0.1:6379                           one server
//	cluster:127.0.0.1:7001,127.0.0.1:7002    a Redis Cluster (any of its nodes)
//	sentinel:mcpgen@127.0.0.1:26379,...      the primary the sentinels call "mcpgen"
package redisconn

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Shape is the kind of deployment a spec names.
type Shape string

const (
	Single   Shape = "single"
	Cluster  Shape = "cluster"
	Sentinel Shape = "sentinel"
)

// Spec is a parsed deployment.
type Spec struct {
	Shape  Shape
	Addrs  []string // the server, the cluster's seed nodes, or the sentinels
	Master string   // Sentinel: the monitored primary's name
}

// Parse reads a spec string (see the package comment).
func Parse(s string) (Spec, error) {
	switch {
	case s == "":
		return Spec{}, errors.New("redisconn: empty deployment spec")
	case strings.HasPrefix(s, "cluster:"):
		addrs := split(strings.TrimPrefix(s, "cluster:"))
		if len(addrs) == 0 {
			return Spec{}, fmt.Errorf("redisconn: %q names no cluster node", s)
		}
		return Spec{Shape: Cluster, Addrs: addrs}, nil
	case strings.HasPrefix(s, "sentinel:"):
		master, rest, ok := strings.Cut(strings.TrimPrefix(s, "sentinel:"), "@")
		addrs := split(rest)
		if !ok || master == "" || len(addrs) == 0 {
			return Spec{}, fmt.Errorf("redisconn: %q is not sentinel:MASTER@HOST:PORT,...", s)
		}
		return Spec{Shape: Sentinel, Addrs: addrs, Master: master}, nil
	}
	return Spec{Shape: Single, Addrs: []string{s}}, nil
}

func split(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// String is the spec as Parse reads it.
func (s Spec) String() string {
	switch s.Shape {
	case Cluster:
		return "cluster:" + strings.Join(s.Addrs, ",")
	case Sentinel:
		return "sentinel:" + s.Master + "@" + strings.Join(s.Addrs, ",")
	}
	return strings.Join(s.Addrs, ",")
}

// FromEnv returns the deployment the tests run on, from the variable that
// redisstore/test.sh sets for the shape it started: MCPGEN_REDIS_CLUSTER
// (nodes, comma-separated), MCPGEN_REDIS_SENTINEL (MASTER@sentinels) or
// MCPGEN_REDIS_ADDR (one server). ok is false when none is set.
func FromEnv() (spec Spec, ok bool, err error) {
	if v := os.Getenv("MCPGEN_REDIS_CLUSTER"); v != "" {
		spec, err = Parse("cluster:" + v)
		return spec, err == nil, err
	}
	if v := os.Getenv("MCPGEN_REDIS_SENTINEL"); v != "" {
		spec, err = Parse("sentinel:" + v)
		return spec, err == nil, err
	}
	if v := os.Getenv("MCPGEN_REDIS_ADDR"); v != "" {
		spec, err = Parse(v)
		return spec, err == nil, err
	}
	return Spec{}, false, nil
}

// Tuning is what a client of a test or a replica sets beyond the spec.
type Tuning struct {
	Timeout    time.Duration // dial, read and write; 0 means 1s
	MaxRetries int           // 0 means 1
	PoolSize   int           // per node; 0 means go-redis's default
	// DisableIdentity skips CLIENT SETINFO on each new connection, so that a
	// connection costs one round trip (HELLO), which the round-trip counts
	// leave out.
	DisableIdentity bool
}

// New returns a client of the deployment. ContextTimeoutEnabled is set:
// the store bounds every operation with its context.
func New(s Spec, t Tuning) redis.UniversalClient {
	if t.Timeout <= 0 {
		t.Timeout = time.Second
	}
	if t.MaxRetries == 0 {
		t.MaxRetries = 1
	}
	switch s.Shape {
	case Cluster:
		return redis.NewClusterClient(&redis.ClusterOptions{
			Addrs: s.Addrs, ContextTimeoutEnabled: true,
			DialTimeout: t.Timeout, ReadTimeout: t.Timeout, WriteTimeout: t.Timeout,
			MaxRetries: t.MaxRetries, PoolSize: t.PoolSize, DisableIdentity: t.DisableIdentity,
		})
	case Sentinel:
		return redis.NewFailoverClient(&redis.FailoverOptions{
			MasterName: s.Master, SentinelAddrs: s.Addrs, ContextTimeoutEnabled: true,
			DialTimeout: t.Timeout, ReadTimeout: t.Timeout, WriteTimeout: t.Timeout,
			MaxRetries: t.MaxRetries, PoolSize: t.PoolSize, DisableIdentity: t.DisableIdentity,
		})
	}
	return redis.NewClient(&redis.Options{
		Addr: s.Addrs[0], ContextTimeoutEnabled: true,
		DialTimeout: t.Timeout, ReadTimeout: t.Timeout, WriteTimeout: t.Timeout,
		MaxRetries: t.MaxRetries, PoolSize: t.PoolSize, DisableIdentity: t.DisableIdentity,
	})
}
