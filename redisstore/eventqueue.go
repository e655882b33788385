package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/ext/events"
	"github.com/redis/go-redis/v9"
)

// The webhook delivery queue of a type, in the type's slot: a sorted set
// of job ids by when each is due (a claimed job's score is the end of its
// claim, so a job whose replica died is due again when the claim lapses),
// a hash of jobs, a hash of claim tokens, one sorted set per subscription
// of its queued events by sequence (its bound, and the watermark of the
// cursors its deliveries carry), and the set of subscriptions told of a
// gap. A job's id is its subscription and event, so one event is queued
// once per subscription whoever queues it.

func (s *EventStore) queueKeys(typ string) []string {
	return []string{s.typeKey(typ, "q"), s.typeKey(typ, "jobs"), s.typeKey(typ, "tok"), s.typeKey(typ, "gap")}
}

func (s *EventStore) pendKey(typ, sub string) string { return s.typeKey(typ, "pend:"+sub) }

var enqueueScript = redis.NewScript(`
local q, jobs, tok, gap = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now, maxp = tonumber(ARGV[1]), tonumber(ARGV[2])
local gapped = {}
local n = (#ARGV - 2) / 5
for i = 0, n - 1 do
  local id, sub, kind, seq, job = ARGV[3 + i*5], ARGV[4 + i*5], ARGV[5 + i*5], ARGV[6 + i*5], ARGV[7 + i*5]
  local pend = KEYS[5 + i]
  if redis.call('HEXISTS', jobs, id) == 0 then
    local ok = true
    if kind == 'event' then
      if redis.call('ZCARD', pend) >= maxp then
        ok = false
        if redis.call('SADD', gap, sub) == 1 then gapped[#gapped + 1] = sub end
      else
        redis.call('ZADD', pend, seq, id)
      end
    end
    if ok then
      redis.call('HSET', jobs, id, job)
      redis.call('ZADD', q, now, id)
    end
  end
end
return gapped
`)

// Enqueue implements events.Store.
func (s *EventStore) Enqueue(ctx context.Context, typ string, jobs []events.DeliveryJob, maxPending int) ([]string, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	var gapped []string
	// Batches keep one script call (and its key list) bounded.
	for start := 0; start < len(jobs); start += 256 {
		batch := jobs[start:min(len(jobs), start+256)]
		keys := s.queueKeys(typ)
		args := []any{time.Now().UnixMilli(), maxPending}
		for _, j := range batch {
			body, err := json.Marshal(j)
			if err != nil {
				return nil, err
			}
			var seq uint64
			if j.Entry != nil {
				seq = j.Entry.Seq
			}
			keys = append(keys, s.pendKey(typ, j.Sub))
			args = append(args, j.ID, j.Sub, j.Kind, seq, body)
		}
		out, err := enqueueScript.Run(ctx, s.rdb, keys, args...).StringSlice()
		if err != nil {
			return nil, fmt.Errorf("redisstore: queuing webhook deliveries: %w", err)
		}
		gapped = append(gapped, out...)
	}
	return gapped, nil
}

var claimScript = redis.NewScript(`
local q, jobs, tok = KEYS[1], KEYS[2], KEYS[3]
local now, untilMs, max, owner, pendPrefix = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]
local ids = redis.call('ZRANGEBYSCORE', q, '-inf', now, 'LIMIT', 0, max)
local out = {}
for i, id in ipairs(ids) do
  local job = redis.call('HGET', jobs, id)
  if job then
    local token = owner .. ':' .. i
    redis.call('ZADD', q, untilMs, id)
    redis.call('HSET', tok, id, token)
    local sub = string.match(id, '^([^/]*)/')
    local low = '0'
    if sub then
      local first = redis.call('ZRANGE', pendPrefix .. sub, 0, 0, 'WITHSCORES')
      if #first == 2 then low = first[2] end
    end
    out[#out + 1] = token
    out[#out + 1] = low
    out[#out + 1] = job
  else
    redis.call('ZREM', q, id)
  end
end
return out
`)

// Claim implements events.Store.
func (s *EventStore) Claim(ctx context.Context, typ, owner string, now time.Time, lease time.Duration, max int) ([]events.Claimed, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	vals, err := claimScript.Run(ctx, s.rdb, s.queueKeys(typ)[:3], now.UnixMilli(), now.Add(lease).UnixMilli(), max,
		owner+":"+newEpoch(), s.typeKey(typ, "pend:")).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("redisstore: claiming webhook deliveries: %w", err)
	}
	var out []events.Claimed
	for i := 0; i+2 < len(vals); i += 3 {
		var c events.Claimed
		if json.Unmarshal([]byte(vals[i+2]), &c.Job) != nil {
			continue
		}
		c.Token = vals[i]
		c.Watermark, _ = strconv.ParseUint(vals[i+1], 10, 64)
		out = append(out, c)
	}
	return out, nil
}

var finishScript = redis.NewScript(`
local q, jobs, tok, gap, pend = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id, token, sub = ARGV[1], ARGV[2], ARGV[3]
if redis.call('HGET', tok, id) ~= token then return 0 end
redis.call('ZREM', q, id)
redis.call('HDEL', jobs, id)
redis.call('HDEL', tok, id)
if redis.call('ZREM', pend, id) == 1 then redis.call('SREM', gap, sub) end
return 1
`)

// Finish implements events.Store.
func (s *EventStore) Finish(ctx context.Context, typ string, c events.Claimed) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	keys := append(s.queueKeys(typ), s.pendKey(typ, c.Job.Sub))
	return finishScript.Run(ctx, s.rdb, keys, c.Job.ID, c.Token, c.Job.Sub).Err()
}

var retryScript = redis.NewScript(`
local q, jobs, tok = KEYS[1], KEYS[2], KEYS[3]
local id, token, due, job = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if redis.call('HGET', tok, id) ~= token then return 0 end
redis.call('HSET', jobs, id, job)
redis.call('HDEL', tok, id)
redis.call('ZADD', q, due, id)
return 1
`)

// Retry implements events.Store.
func (s *EventStore) Retry(ctx context.Context, typ string, c events.Claimed, due time.Time) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	body, err := json.Marshal(c.Job)
	if err != nil {
		return err
	}
	return retryScript.Run(ctx, s.rdb, s.queueKeys(typ)[:3], c.Job.ID, c.Token, due.UnixMilli(), body).Err()
}

// Watermark implements events.Store.
func (s *EventStore) Watermark(ctx context.Context, typ, sub string) (uint64, bool, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	zs, err := s.rdb.ZRangeWithScores(ctx, s.pendKey(typ, sub), 0, 0).Result()
	if err != nil || len(zs) == 0 {
		return 0, false, err
	}
	return uint64(zs[0].Score), true, nil
}

var dropScript = redis.NewScript(`
local q, jobs, tok, gap, pend = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local mode, sub, now = ARGV[1], ARGV[2], ARGV[3]
local ids = redis.call('ZRANGE', pend, 0, -1)
for _, id in ipairs(ids) do
  if mode == 'drop' then
    redis.call('ZREM', q, id)
    redis.call('HDEL', jobs, id)
    redis.call('HDEL', tok, id)
  elseif redis.call('HEXISTS', tok, id) == 0 then
    redis.call('ZADD', q, 'LT', now, id)
  end
end
if mode == 'drop' then
  redis.call('DEL', pend)
  redis.call('SREM', gap, sub)
end
return #ids
`)

// DropQueued implements events.Store.
func (s *EventStore) DropQueued(ctx context.Context, typ, sub string) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	return dropScript.Run(ctx, s.rdb, append(s.queueKeys(typ), s.pendKey(typ, sub)), "drop", sub, time.Now().UnixMilli()).Err()
}

// Resume implements events.Store.
func (s *EventStore) Resume(ctx context.Context, typ, sub string) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	return dropScript.Run(ctx, s.rdb, append(s.queueKeys(typ), s.pendKey(typ, sub)), "resume", sub, time.Now().UnixMilli()).Err()
}
