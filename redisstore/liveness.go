package redisstore

import (
	"context"
	"encoding/binary"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// A replica proves it is alive, and that its pub/sub subscription works,
// once a heartbeat: one script renews its liveness record
// ("<prefix>replica:{<id>}", which expires after livenessBeats heartbeats)
// and publishes a probe on the replica's own channel. The probe must come
// back through the subscription. When it does not for probeMisses beats in a
// row, the subscription is made again on a new connection.
//
// The number PUBLISH returns cannot tell that a replica listens: on a Redis
// Cluster it counts the subscribers of the one node that took the command,
// and after a Sentinel failover a subscription may still be on the old
// primary, which no longer receives what is published on the new one. The
// liveness record says whether the replica exists; the probe says whether
// its subscription is where messages are published; the replies of the
// replica (pending.go, bus.go) say whether a message arrived.
//
// This is what moves a subscription to the new primary after a Sentinel
// failover (go-redis moves the ordinary connections when the sentinels
// announce the switch, but not a subscription's connection, which the old
// primary keeps until the sentinels reconfigure it, about ten seconds
// later), and what renews one whose connection a proxy or a cluster node
// dropped silently.

// livenessBeats is how many heartbeats a liveness record outlives its last
// renewal: a replica killed without Close is taken for gone that long after.
const livenessBeats = 3

// probeMisses is how many heartbeats in a row a probe may fail to come back
// before the subscription is made again.
const probeMisses = 2

// kindProbe is a heartbeat's probe on a replica's own channel: a sequence
// number, 8 bytes.
const kindProbe = 'p'

// beatScript renews a replica's liveness record and publishes its probe.
//
// KEYS: liveness record. ARGV: record value, ttl ms, the replica's channel,
// probe.
var beatScript = redis.NewScript(`
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
`)

func (s *Store) livenessKey(replica string) string {
	return s.opts.Prefix + "replica:{" + replica + "}"
}

// heartbeat runs until the store closes.
func (s *Store) heartbeat() {
	defer s.wg.Done()
	t := time.NewTicker(s.opts.Heartbeat)
	defer t.Stop()
	misses := 0
	var sent uint64 // the last probe published
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		if sent != 0 {
			if s.probeSeen.Load() >= sent {
				misses = 0
			} else if misses++; misses >= probeMisses {
				s.logger().Warn("redisstore: the pub/sub subscription receives nothing; subscribing again on a new connection")
				s.resubscribe()
				misses = 0
			}
		}
		seq := sent + 1
		if err := s.beat(seq); err != nil {
			// Redis is unreachable: the subscription cannot be judged, and
			// its connection re-establishes itself when Redis is back.
			sent, misses = 0, 0
			if s.ctx.Err() == nil {
				s.logger().Debug("redisstore: heartbeat", "err", err)
			}
			continue
		}
		sent = seq
	}
}

// beat renews the liveness record and publishes probe seq.
func (s *Store) beat(seq uint64) error {
	ctx, cancel := s.op(s.ctx)
	defer cancel()
	probe := envelope(kindProbe, binary.BigEndian.AppendUint64(nil, seq))
	return beatScript.Run(ctx, s.rdb, []string{s.livenessKey(s.id)},
		time.Now().UTC().Format(time.RFC3339), (livenessBeats * s.opts.Heartbeat).Milliseconds(),
		s.answerChannel(s.id), probe).Err()
}

// receiveProbe records that probe came back.
func (s *Store) receiveProbe(payload []byte) {
	_, f, ok := openEnvelope(payload, 1)
	if !ok || len(f[0]) != 8 {
		return
	}
	seq := binary.BigEndian.Uint64(f[0])
	for {
		seen := s.probeSeen.Load()
		if seq <= seen || s.probeSeen.CompareAndSwap(seen, seq) {
			return
		}
	}
}

// claimID claims a routing ID no other live process holds (SET NX), so a
// collision of random IDs is refused instead of mixing answers.
func (s *Store) claimID(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		id := randomHex(replicaIDLen / 2)
		cctx, cancel := context.WithTimeout(ctx, s.opts.OpTimeout)
		ok, err := s.rdb.SetNX(cctx, s.livenessKey(id), time.Now().UTC().Format(time.RFC3339), livenessBeats*s.opts.Heartbeat).Result()
		cancel()
		if err != nil {
			return s.unavailable("claiming a replica ID", err)
		}
		if ok {
			s.id = id
			return nil
		}
		if attempt == 3 {
			return errAllIDsTaken
		}
	}
}

// resubscribe replaces the pub/sub connection with a new one subscribed to
// every channel of the old one. Messages published meanwhile are lost to
// this replica, as they were to the connection that stopped receiving.
func (s *Store) resubscribe() {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	s.mu.Lock()
	channels := make([]string, 0, len(s.confirmed))
	for ch := range s.confirmed {
		channels = append(channels, ch)
	}
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return
	}
	old := s.ps
	s.ps = s.listen()
	ctx, cancel := s.op(s.ctx)
	defer cancel()
	if err := s.ps.Subscribe(ctx, channels...); err != nil {
		s.logger().Warn("redisstore: subscribing again", "channels", strconv.Itoa(len(channels)), "err", err)
	}
	old.Close()
}
