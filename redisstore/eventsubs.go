package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/mcpgen/mcpgen/ext/events"
	"github.com/redis/go-redis/v9"
)

// Webhook subscriptions live in one slot ("{<prefix>evsubs}"): a hash of
// records by id, a hash of delivery statuses, a sorted set of expiries, a
// set of ids per type, and the counters the bounds are held to (per
// principal and in all, counts and bytes), so that a subscribe checks and
// takes its share in one atomic step on every replica. Expiry is enforced
// where it matters, on every read: an expired subscription is never
// returned, whether or not a replica has swept it yet.

// noExpiryScore is the expiry score of a subscription that never expires.
const noExpiryScore = math.MaxInt64 >> 10

func (s *EventStore) subsKeys(typ string) []string {
	return []string{s.subsKey("rec"), s.subsKey("status"), s.subsKey("exp"), s.subsKey("type:" + typ),
		s.subsKey("count"), s.subsKey("bytes"), s.subsKey("size")}
}

// putScript stores a record if the stored one is still what the caller
// read (compare and set), holding a new one to the bounds.
var putScript = redis.NewScript(`
local rec, status, exp, bytype, count, bytes, size = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local id, expected, new, expiry, pk, sz, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local maxc, maxcp, maxb, maxbp = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local cur = redis.call('HGET', rec, id) or ''
if cur ~= expected then return {'retry'} end
local st = redis.call('HGET', status, id) or '{}'
local live = cur ~= '' and (tonumber(redis.call('ZSCORE', exp, id) or '0') > now)
if cur ~= '' and not live then
  -- An expired record not swept yet: release it first, then this is a new one.
  local old = cjson.decode(cur)
  local osz = tonumber(redis.call('HGET', size, id) or '0')
  redis.call('HINCRBY', count, '*', -1)
  redis.call('HINCRBY', count, old.pk, -1)
  redis.call('HINCRBY', bytes, '*', -osz)
  redis.call('HINCRBY', bytes, old.pk, -osz)
  redis.call('HDEL', status, id)
  st = '{}'
end
if live then
  local osz = tonumber(redis.call('HGET', size, id) or '0')
  redis.call('HINCRBY', bytes, '*', sz - osz)
  redis.call('HINCRBY', bytes, pk, sz - osz)
  local s = cjson.decode(st)
  if s.suspended then
    s.suspended = nil
    redis.call('HSET', status, id, cjson.encode(s))
  end
else
  local c, cp = tonumber(redis.call('HGET', count, '*') or '0'), tonumber(redis.call('HGET', count, pk) or '0')
  local b, bp = tonumber(redis.call('HGET', bytes, '*') or '0'), tonumber(redis.call('HGET', bytes, pk) or '0')
  if c >= maxc then return {'bound', 'MaxSubscriptions', '0', maxc} end
  if cp >= maxcp then return {'bound', 'MaxSubscriptions', '1', maxcp} end
  if b + sz > maxb then return {'bound', 'MaxSubscriptionBytes', '0', maxb} end
  if bp + sz > maxbp then return {'bound', 'MaxSubscriptionBytes', '1', maxbp} end
  redis.call('HINCRBY', count, '*', 1)
  redis.call('HINCRBY', count, pk, 1)
  redis.call('HINCRBY', bytes, '*', sz)
  redis.call('HINCRBY', bytes, pk, sz)
end
redis.call('HSET', rec, id, new)
redis.call('HSET', size, id, sz)
redis.call('ZADD', exp, expiry, id)
redis.call('SADD', bytype, id)
if live then return {'ok', '1', st} end
return {'ok', '0', st}
`)

// PutWebhook implements events.Store.
func (s *EventStore) PutWebhook(ctx context.Context, rec *events.WebhookRecord, b events.Bounds) (bool, events.WebhookStatus, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	for range 8 {
		cur, err := s.rdb.HGet(ctx, s.subsKey("rec"), rec.ID).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return false, events.WebhookStatus{}, fmt.Errorf("redisstore: reading a webhook subscription: %w", err)
		}
		next := *rec
		if cur != "" {
			var old events.WebhookRecord
			if json.Unmarshal([]byte(cur), &old) == nil && (old.Expiry == 0 || old.Expiry > time.Now().UnixMilli()) {
				next.Created = old.Created
				next.OldSecret, next.OldUntil = old.OldSecret, old.OldUntil
				if old.Secret != rec.Secret {
					next.OldSecret, next.OldUntil = old.Secret, rec.OldUntil
				}
			}
		}
		if next.OldSecret == "" {
			next.OldUntil = 0
		}
		body, _ := json.Marshal(next)
		expiry := int64(noExpiryScore)
		if next.Expiry != 0 {
			expiry = next.Expiry
		}
		vals, err := putScript.Run(ctx, s.rdb, s.subsKeys(rec.Type), rec.ID, cur, body, expiry, rec.PrincipalKey, next.Size(),
			time.Now().UnixMilli(), b.MaxCount, b.MaxCountPerPrincipal, b.MaxBytes, b.MaxBytesPerPrincipal).Slice()
		if err != nil {
			return false, events.WebhookStatus{}, fmt.Errorf("redisstore: storing a webhook subscription: %w", err)
		}
		switch toString(vals[0]) {
		case "retry":
			continue
		case "bound":
			return false, events.WebhookStatus{}, &events.BoundError{Bound: toString(vals[1]), PerPrincipal: toString(vals[2]) == "1", Max: int64(toUint(vals[3]))}
		}
		var st events.WebhookStatus
		json.Unmarshal([]byte(toString(vals[2])), &st)
		if err := s.changed(ctx, rec.Type); err != nil {
			return false, st, err
		}
		return toString(vals[1]) == "1", st, nil
	}
	return false, events.WebhookStatus{}, errors.New("redisstore: a webhook subscription kept changing under a subscribe; try again")
}

// GetWebhooks implements events.Store.
func (s *EventStore) GetWebhooks(ctx context.Context, ids []string) ([]*events.WebhookRecord, []events.WebhookStatus, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	var recs, sts *redis.SliceCmd
	var exps *redis.FloatSliceCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		recs = p.HMGet(ctx, s.subsKey("rec"), ids...)
		sts = p.HMGet(ctx, s.subsKey("status"), ids...)
		exps = p.ZMScore(ctx, s.subsKey("exp"), ids...)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("redisstore: reading webhook subscriptions: %w", err)
	}
	now := float64(time.Now().UnixMilli())
	out := make([]*events.WebhookRecord, len(ids))
	status := make([]events.WebhookStatus, len(ids))
	for i := range ids {
		raw, _ := recs.Val()[i].(string)
		if raw == "" || exps.Val()[i] <= now {
			continue
		}
		var r events.WebhookRecord
		if json.Unmarshal([]byte(raw), &r) != nil {
			continue
		}
		out[i] = &r
		if st, _ := sts.Val()[i].(string); st != "" {
			json.Unmarshal([]byte(st), &status[i])
		}
	}
	return out, status, nil
}

// removeScript removes subscriptions (the given ids, or up to ARGV[2]
// expired ones) and releases their share of the bounds.
var removeScript = redis.NewScript(`
local rec, status, exp, count, bytes, size = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local mode, now, prefix = ARGV[1], ARGV[2], ARGV[3]
local ids
if mode == 'expired' then
  ids = redis.call('ZRANGEBYSCORE', exp, '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
else
  ids = {}
  for i = 4, #ARGV do ids[#ids + 1] = ARGV[i] end
end
local out = {}
for _, id in ipairs(ids) do
  local r = redis.call('HGET', rec, id)
  if r then
    local old = cjson.decode(r)
    local sz = tonumber(redis.call('HGET', size, id) or '0')
    local e = tonumber(redis.call('ZSCORE', exp, id) or '0')
    redis.call('HINCRBY', count, '*', -1)
    redis.call('HINCRBY', count, old.pk, -1)
    redis.call('HINCRBY', bytes, '*', -sz)
    redis.call('HINCRBY', bytes, old.pk, -sz)
    redis.call('HDEL', rec, id)
    redis.call('HDEL', status, id)
    redis.call('HDEL', size, id)
    redis.call('ZREM', exp, id)
    redis.call('SREM', prefix .. old.type, id)
    local live = '0'
    if e > tonumber(now) then live = '1' end
    out[#out + 1] = live
    out[#out + 1] = r
  end
end
return out
`)

func (s *EventStore) remove(ctx context.Context, args ...any) ([]*events.WebhookRecord, []bool, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	keys := []string{s.subsKey("rec"), s.subsKey("status"), s.subsKey("exp"), s.subsKey("count"), s.subsKey("bytes"), s.subsKey("size")}
	vals, err := removeScript.Run(ctx, s.rdb, keys, args...).StringSlice()
	if err != nil {
		return nil, nil, fmt.Errorf("redisstore: removing webhook subscriptions: %w", err)
	}
	var out []*events.WebhookRecord
	var live []bool
	types := map[string]bool{}
	for i := 0; i+1 < len(vals); i += 2 {
		var r events.WebhookRecord
		if json.Unmarshal([]byte(vals[i+1]), &r) == nil {
			out = append(out, &r)
			live = append(live, vals[i] == "1")
			types[r.Type] = true
		}
	}
	for typ := range types {
		if err := s.changed(ctx, typ); err != nil {
			return out, live, err
		}
	}
	return out, live, nil
}

// changed marks typ's subscriptions changed (the version emitters cache
// them by) and copies their number into the type's slot, where the append
// reads it to decide whether an event needs a fan-out job.
func (s *EventStore) changed(ctx context.Context, typ string) error {
	n, err := s.rdb.SCard(ctx, s.subsKey("type:"+typ)).Result()
	if err == nil {
		_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.Incr(ctx, s.typeKey(typ, "ver"))
			p.Set(ctx, s.typeKey(typ, "nsubs"), n, 0)
			return nil
		})
	}
	if err != nil {
		return fmt.Errorf("redisstore: marking a type's subscriptions changed: %w", err)
	}
	return nil
}

// DeleteWebhook implements events.Store.
func (s *EventStore) DeleteWebhook(ctx context.Context, id string) (*events.WebhookRecord, error) {
	recs, live, err := s.remove(ctx, "ids", time.Now().UnixMilli(), s.subsKey("type:"), id)
	if err != nil || len(recs) == 0 || !live[0] {
		return nil, err
	}
	return recs[0], nil
}

// ExpireWebhooks implements events.Store.
func (s *EventStore) ExpireWebhooks(ctx context.Context, now time.Time, max int) ([]*events.WebhookRecord, error) {
	recs, _, err := s.remove(ctx, "expired", now.UnixMilli(), s.subsKey("type:"), max)
	return recs, err
}

var listScript = redis.NewScript(`
local ids = redis.call('SMEMBERS', KEYS[1])
if #ids == 0 then return {{}, {}} end
return {redis.call('HMGET', KEYS[2], unpack(ids)), redis.call('ZMSCORE', KEYS[3], unpack(ids))}
`)

// Webhooks implements events.Store.
func (s *EventStore) Webhooks(ctx context.Context, typ string) (uint64, []*events.WebhookRecord, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	var ver *redis.StringCmd
	var list *redis.Cmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		ver = p.Get(ctx, s.typeKey(typ, "ver"))
		list = listScript.Eval(ctx, p, []string{s.subsKey("type:" + typ), s.subsKey("rec"), s.subsKey("exp")})
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, nil, fmt.Errorf("redisstore: reading a type's subscriptions: %w", err)
	}
	vals, err := list.Slice()
	if err != nil {
		return 0, nil, fmt.Errorf("redisstore: reading a type's subscriptions: %w", err)
	}
	version := toUint(ver.Val())
	raws, _ := vals[0].([]any)
	exps, _ := vals[1].([]any)
	now := time.Now().UnixMilli()
	var out []*events.WebhookRecord
	for i, raw := range raws {
		r, _ := raw.(string)
		var e int64
		if i < len(exps) {
			e = int64(toUint(exps[i]))
		}
		if r == "" || e <= now {
			continue
		}
		var rec events.WebhookRecord
		if json.Unmarshal([]byte(r), &rec) == nil && !rec.Pending {
			out = append(out, &rec)
		}
	}
	return version, out, nil
}

var attemptScript = redis.NewScript(`
local rec, status = KEYS[1], KEYS[2]
local id, failure, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local window, minAttempts, rate = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
if redis.call('HEXISTS', rec, id) == 0 then return '' end
local s = cjson.decode(redis.call('HGET', status, id) or '{}')
if not s.win or now - s.win >= window then s.win, s.n, s.f = now, 0, 0 end
s.n = (s.n or 0) + 1
if failure == '' then
  s.last, s.err, s.failedSince = now, nil, nil
else
  s.f = (s.f or 0) + 1
  s.err = failure
  if not s.failedSince then s.failedSince = now end
  if not s.suspended and s.n >= minAttempts and s.f >= rate * s.n then s.suspended = true end
end
local out = cjson.encode(s)
redis.call('HSET', status, id, out)
return out
`)

// RecordAttempt implements events.Store (the policy's arithmetic, in Lua).
func (s *EventStore) RecordAttempt(ctx context.Context, id string, failure events.Failure, now time.Time, p events.SuspendPolicy) (events.WebhookStatus, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	out, err := attemptScript.Run(ctx, s.rdb, []string{s.subsKey("rec"), s.subsKey("status")}, id, string(failure), now.UnixMilli(),
		p.Window.Milliseconds(), p.MinAttempts, p.FailureRate).Text()
	var st events.WebhookStatus
	if err != nil {
		return st, fmt.Errorf("redisstore: recording a delivery attempt: %w", err)
	}
	if out != "" {
		json.Unmarshal([]byte(out), &st)
	}
	return st, nil
}
