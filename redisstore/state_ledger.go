package redisstore

import (
	"context"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// StateLedger returns the runtime.StateLedger on this Store: the spent
// single-use requestStates of every replica, so that an answer replayed to
// another replica is refused too. Each spent ID is one key,
// "<prefix>rs:<id>", set with SET NX PX and gone when the state expires.
func (s *Store) StateLedger() runtime.StateLedger { return stateLedger{s} }

type stateLedger struct{ s *Store }

// Spend implements runtime.StateLedger: the first SET NX wins.
func (l stateLedger) Spend(ctx context.Context, id string, until time.Time) (bool, error) {
	s := l.s
	ttl := time.Until(until)
	if ttl < time.Millisecond {
		ttl = time.Millisecond // expired meanwhile: the seal refuses it on the next open anyway
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	first, err := s.rdb.SetNX(ctx, s.opts.Prefix+"rs:"+id, 1, ttl).Result()
	if err != nil {
		return false, s.unavailable("recording a spent requestState", err)
	}
	return first, nil
}
