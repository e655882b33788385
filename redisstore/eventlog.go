package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/ext/events"
	"github.com/redis/go-redis/v9"
)

// EventStore keeps the events extension's state on Redis (events.Store),
// for replicas that share it: each event type's log, webhook
// subscriptions, the queue of webhook deliveries with their claims, the
// verified callbacks and who is interested in each type. It is not the SSE
// resumption store of events.go, which keeps a session's stream events.
//
// Every key of one event type shares one hash tag ("{<prefix>ev:<type>}"),
// and every key of the webhook subscriptions another ("{<prefix>evsubs}"),
// so that each multi-key operation stays in one slot of a Redis Cluster.
// The live fan-out between replicas is sharded pub/sub (SPUBLISH inside the
// append, in the type's slot), so it works on a cluster and nothing reads
// the count of subscribers PUBLISH returns.
//
// What an emitted event costs: one round trip (the append, its fan-out job
// and its publication are one script), plus, for a type with webhook
// subscriptions, one to queue the deliveries and one to finish the fan-out.
type EventStore struct {
	rdb    redis.UniversalClient
	prefix string
	opTO   time.Duration
	log    *slog.Logger

	mu        sync.Mutex
	listeners map[string]*typeListener
	closed    bool
}

// EventOptions tune an EventStore. The zero value is usable.
type EventOptions struct {
	// Prefix starts every key and channel; default "mcpgen:".
	Prefix string
	// OpTimeout bounds every Redis operation; default 2s.
	OpTimeout time.Duration
	// Logger receives the store's logs; nil discards them.
	Logger *slog.Logger
}

// NewEventStore returns an EventStore on rdb. Close it on shutdown.
func NewEventStore(rdb redis.UniversalClient, o EventOptions) *EventStore {
	if o.Prefix == "" {
		o.Prefix = "mcpgen:"
	}
	if o.OpTimeout <= 0 {
		o.OpTimeout = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &EventStore{rdb: rdb, prefix: o.Prefix, opTO: o.OpTimeout, log: o.Logger, listeners: map[string]*typeListener{}}
}

var _ events.Store = (*EventStore)(nil)

// Close ends the store's subscriptions (the Redis client stays open).
func (s *EventStore) Close() error {
	s.mu.Lock()
	s.closed = true
	ls := s.listeners
	s.listeners = map[string]*typeListener{}
	s.mu.Unlock()
	for _, l := range ls {
		l.close()
	}
	return nil
}

func (s *EventStore) op(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.opTO)
}

// typeKey is a key of event type typ: all share the type's hash tag.
func (s *EventStore) typeKey(typ, name string) string {
	return "{" + s.prefix + "ev:" + typ + "}:" + name
}

func (s *EventStore) subsKey(name string) string { return "{" + s.prefix + "evsubs}:" + name }

func newEpoch() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// The log: a sorted set of "seq|appendedMs|entry" scored by sequence, a
// hash of its epoch, head and trimmed mark, and a sorted set of recent
// event IDs by append time (the duplicates check).
var appendScript = redis.NewScript(`
local log, meta, ids, q, jobs, tok, ver, nsubs = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local id, now, retention, maxn, noreplay = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5] == '1'
local entry, channel, epoch = ARGV[6], ARGV[7], ARGV[8]
local fanout, owner, lease = ARGV[9] == '1', ARGV[10], tonumber(ARGV[11])
redis.call('HSETNX', meta, 'epoch', epoch)
epoch = redis.call('HGET', meta, 'epoch')
local floor = now - retention
-- Trim by age (oldest first, a bounded number per call) and by count.
for i = 1, 256 do
  local first = redis.call('ZRANGE', log, 0, 0)
  if #first == 0 then break end
  local seq, at = string.match(first[1], '^(%d+)|(%d+)|')
  if tonumber(at) >= floor then break end
  redis.call('ZREMRANGEBYRANK', log, 0, 0)
  redis.call('HSET', meta, 'trimmed', seq)
end
redis.call('ZREMRANGEBYSCORE', ids, '-inf', '(' .. floor)
local version = tonumber(redis.call('GET', ver) or '0')
local head = tonumber(redis.call('HGET', meta, 'head') or '0')
if redis.call('ZSCORE', ids, id) then
  return {head, head, epoch, 1, version}
end
head = redis.call('HINCRBY', meta, 'head', 1)
redis.call('ZADD', ids, now, id)
local extra = redis.call('ZCARD', ids) - maxn
if extra > 0 then redis.call('ZPOPMIN', ids, extra) end
local member = head .. '|' .. now .. '|' .. entry
if not noreplay then
  redis.call('ZADD', log, head, member)
  extra = redis.call('ZCARD', log) - maxn
  if extra > 0 then
    local gone = redis.call('ZPOPMIN', log, extra)
    redis.call('HSET', meta, 'trimmed', gone[#gone])
  end
end
if fanout and tonumber(redis.call('GET', nsubs) or '0') > 0 then
  local jid = 'fanout/' .. head
  redis.call('HSET', jobs, jid, '{"id":"' .. jid .. '","sub":"fanout","kind":"fanout","ep":"' .. epoch .. '","e":' .. string.gsub(entry, '^{"s":0', '{"s":' .. head, 1) .. '}')
  redis.call('ZADD', q, now + lease, jid)
  redis.call('HSET', tok, jid, owner)
end
redis.call('SPUBLISH', channel, (head - 1) .. '|' .. member)
local queued = 0
if redis.call('HEXISTS', jobs, 'fanout/' .. head) == 1 then queued = 1 end
return {head, head - 1, epoch, 0, version, queued}
`)

// Append implements events.Store.
func (s *EventStore) Append(ctx context.Context, typ string, e events.LogEntry, lim events.LogLimits) (events.AppendResult, error) {
	e.Seq = 0
	entry, err := json.Marshal(e)
	if err != nil {
		return events.AppendResult{}, err
	}
	fanout, owner, lease := "0", "", int64(0)
	if lim.Fanout != nil {
		fanout, owner, lease = "1", lim.Fanout.Owner+":"+newEpoch(), lim.Fanout.Lease.Milliseconds()
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	keys := []string{s.typeKey(typ, "log"), s.typeKey(typ, "meta"), s.typeKey(typ, "ids"), s.typeKey(typ, "q"),
		s.typeKey(typ, "jobs"), s.typeKey(typ, "tok"), s.typeKey(typ, "ver"), s.typeKey(typ, "nsubs")}
	noReplay := "0"
	if lim.NoReplay {
		noReplay = "1"
	}
	vals, err := appendScript.Run(ctx, s.rdb, keys, e.EventID, time.Now().UnixMilli(), lim.Retention.Milliseconds(),
		max(lim.MaxRetained, 1), noReplay, entry, s.typeKey(typ, "bus"), newEpoch(), fanout, owner, lease).Slice()
	if err != nil {
		return events.AppendResult{}, fmt.Errorf("redisstore: appending an event: %w", err)
	}
	res := events.AppendResult{Seq: toUint(vals[0]), Prev: toUint(vals[1]), Epoch: toString(vals[2]), Duplicate: toUint(vals[3]) == 1, WebhooksVersion: toUint(vals[4])}
	if lim.Fanout != nil && !res.Duplicate && toUint(vals[5]) == 1 {
		e.Seq = res.Seq
		res.Fanout = &events.Claimed{Job: events.DeliveryJob{ID: "fanout/" + strconv.FormatUint(res.Seq, 10), Sub: "fanout", Kind: "fanout", Entry: &e, Epoch: res.Epoch}, Token: owner}
	}
	return res, nil
}

var readScript = redis.NewScript(`
local log, meta = KEYS[1], KEYS[2]
local after, limit, now, retention, epoch = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
redis.call('HSETNX', meta, 'epoch', epoch)
local floor = now - retention
for i = 1, 256 do
  local first = redis.call('ZRANGE', log, 0, 0)
  if #first == 0 then break end
  local seq, at = string.match(first[1], '^(%d+)|(%d+)|')
  if tonumber(at) >= floor then break end
  redis.call('ZREMRANGEBYRANK', log, 0, 0)
  redis.call('HSET', meta, 'trimmed', seq)
end
local m = redis.call('HMGET', meta, 'epoch', 'head', 'trimmed')
local entries = {}
if limit > 0 then
  entries = redis.call('ZRANGEBYSCORE', log, '(' .. after, '+inf', 'LIMIT', 0, limit)
end
return {m[1], m[2] or '0', m[3] or '0', entries}
`)

func (s *EventStore) read(ctx context.Context, typ string, lim events.LogLimits, after uint64, limit int) (events.LogPage, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	vals, err := readScript.Run(ctx, s.rdb, []string{s.typeKey(typ, "log"), s.typeKey(typ, "meta")},
		after, limit, time.Now().UnixMilli(), lim.Retention.Milliseconds(), newEpoch()).Slice()
	if err != nil {
		return events.LogPage{}, fmt.Errorf("redisstore: reading an event log: %w", err)
	}
	page := events.LogPage{Epoch: toString(vals[0]), Head: toUint(vals[1]), Trimmed: toUint(vals[2])}
	members, _ := vals[3].([]any)
	for _, m := range members {
		e, err := parseMember(toString(m))
		if err != nil {
			return events.LogPage{}, err
		}
		page.Entries = append(page.Entries, e)
	}
	return page, nil
}

// Read implements events.Store.
func (s *EventStore) Read(ctx context.Context, typ string, lim events.LogLimits, after uint64, limit int) (events.LogPage, error) {
	return s.read(ctx, typ, lim, after, limit)
}

// Head implements events.Store.
func (s *EventStore) Head(ctx context.Context, typ string, lim events.LogLimits) (events.LogPage, error) {
	return s.read(ctx, typ, lim, 0, 0)
}

// parseMember decodes "seq|appendedMs|entry".
func parseMember(m string) (events.LogEntry, error) {
	seqS, rest, ok1 := strings.Cut(m, "|")
	_, body, ok2 := strings.Cut(rest, "|")
	var e events.LogEntry
	if !ok1 || !ok2 {
		return e, errors.New("redisstore: a malformed event log entry")
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		return e, fmt.Errorf("redisstore: a malformed event log entry: %w", err)
	}
	seq, err := strconv.ParseUint(seqS, 10, 64)
	e.Seq = seq
	return e, err
}

// typeListener is this process's sharded subscription to one type's bus.
type typeListener struct {
	ps   *redis.PubSub
	mu   sync.Mutex
	fns  map[int]func(events.LogEntry, uint64)
	next int
	done chan struct{}
}

// Listen implements events.Store: one sharded subscription per type and
// process, whatever the number of listeners.
func (s *EventStore) Listen(typ string, fn func(events.LogEntry, uint64)) (func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("redisstore: the event store is closed")
	}
	l := s.listeners[typ]
	if l == nil {
		ctx, cancel := s.op(context.Background())
		ps := s.rdb.SSubscribe(ctx, s.typeKey(typ, "bus"))
		_, err := ps.Receive(ctx) // the confirmation: from here on nothing is missed
		cancel()
		if err != nil {
			ps.Close()
			return nil, fmt.Errorf("redisstore: subscribing to an event bus: %w", err)
		}
		l = &typeListener{ps: ps, fns: map[int]func(events.LogEntry, uint64){}, done: make(chan struct{})}
		s.listeners[typ] = l
		go l.run(s.log)
	}
	l.mu.Lock()
	id := l.next
	l.next++
	l.fns[id] = fn
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		delete(l.fns, id)
		l.mu.Unlock()
	}, nil
}

func (l *typeListener) run(log *slog.Logger) {
	defer close(l.done)
	for msg := range l.ps.Channel(redis.WithChannelSize(4096)) {
		prevS, member, ok := strings.Cut(msg.Payload, "|")
		e, err := parseMember(member)
		if !ok || err != nil {
			log.Warn("redisstore: a malformed event bus message", "channel", msg.Channel)
			continue
		}
		prev, _ := strconv.ParseUint(prevS, 10, 64)
		l.mu.Lock()
		for _, fn := range l.fns {
			fn(e, prev)
		}
		l.mu.Unlock()
	}
}

func (l *typeListener) close() {
	l.ps.Close()
	<-l.done
}

// Interest implements events.Store.
func (s *EventStore) Interest(ctx context.Context, typ, key string, until time.Time) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	return s.rdb.ZAdd(ctx, s.typeKey(typ, "interest"), redis.Z{Score: float64(until.UnixMilli()), Member: key}).Err()
}

// DropInterest implements events.Store.
func (s *EventStore) DropInterest(ctx context.Context, typ, key string) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	return s.rdb.ZRem(ctx, s.typeKey(typ, "interest"), key).Err()
}

var watcherScript = redis.NewScript(`
local interest, watch = KEYS[1], KEYS[2]
local now, owner, ttl = ARGV[1], ARGV[2], ARGV[3]
redis.call('ZREMRANGEBYSCORE', interest, '-inf', now)
local holder = redis.call('GET', watch)
if redis.call('ZCARD', interest) == 0 then
  if holder == owner then redis.call('DEL', watch) end
  return 0
end
if not holder or holder == owner then
  redis.call('SET', watch, owner, 'PX', ttl)
  return 1
end
return 0
`)

// Watcher implements events.Store.
func (s *EventStore) Watcher(ctx context.Context, typ, owner string, now time.Time, ttl time.Duration) (bool, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	n, err := watcherScript.Run(ctx, s.rdb, []string{s.typeKey(typ, "interest"), s.typeKey(typ, "watch")},
		now.UnixMilli(), owner, ttl.Milliseconds()).Int()
	return n == 1, err
}

// Verified implements events.Store.
func (s *EventStore) Verified(ctx context.Context, key string) (bool, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	n, err := s.rdb.Exists(ctx, s.subsKey("verified:"+key)).Result()
	return n == 1, err
}

// SetVerified implements events.Store.
func (s *EventStore) SetVerified(ctx context.Context, key string, ttl time.Duration) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	return s.rdb.Set(ctx, s.subsKey("verified:"+key), "1", ttl).Err()
}

func toUint(v any) uint64 {
	switch x := v.(type) {
	case int64:
		return uint64(x)
	case string:
		n, _ := strconv.ParseUint(x, 10, 64)
		return n
	}
	return 0
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return ""
}
