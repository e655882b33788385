package events

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// NewMemoryStore returns a Store that keeps everything in this process:
// for one server process, and for tests. Its logs start a new epoch with
// every process, so cursors from before a restart resume with truncated.
func NewMemoryStore() Store {
	return &memoryStore{
		epoch:    randomToken(8),
		logs:     map[string]*memLog{},
		subs:     map[string]*memSub{},
		versions: map[string]uint64{},
		queues:   map[string]*memQueue{},
		verified: map[string]time.Time{},
		interest: map[string]map[string]time.Time{},
		watchers: map[string]memWatch{},
	}
}

type memoryStore struct {
	mu       sync.Mutex
	epoch    string
	logs     map[string]*memLog
	subs     map[string]*memSub
	versions map[string]uint64
	queues   map[string]*memQueue
	verified map[string]time.Time
	interest map[string]map[string]time.Time
	watchers map[string]memWatch

	lmu       sync.Mutex // orders listener calls with appends
	listeners map[string]map[*memListener]struct{}
}

type memLog struct {
	entries []LogEntry // oldest first
	at      []int64    // when each entry was appended (Unix ms)
	ids     map[string]int64
	idOrder []string
	head    uint64
	trimmed uint64
}

type memSub struct {
	rec    WebhookRecord
	status WebhookStatus
}

type memQueue struct {
	jobs    map[string]*memJob
	pending map[string]map[uint64]int // sub -> seq -> jobs
	gapped  map[string]bool
}

type memJob struct {
	job   DeliveryJob
	due   int64
	token string
}

type memWatch struct {
	owner string
	until time.Time
}

type memListener struct{ fn func(LogEntry, uint64) }

func (s *memoryStore) log(typ string) *memLog {
	l := s.logs[typ]
	if l == nil {
		l = &memLog{ids: map[string]int64{}}
		s.logs[typ] = l
	}
	return l
}

func (s *memoryStore) Append(ctx context.Context, typ string, e LogEntry, lim LogLimits) (AppendResult, error) {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	s.mu.Lock()
	l := s.log(typ)
	now := time.Now().UnixMilli()
	l.trim(now, lim)
	if _, dup := l.ids[e.EventID]; dup {
		res := AppendResult{Seq: l.head, Prev: l.head, Epoch: s.epoch, Duplicate: true, WebhooksVersion: s.versions[typ]}
		s.mu.Unlock()
		return res, nil
	}
	prev := l.head
	l.head++
	e.Seq = l.head
	l.ids[e.EventID] = now
	l.idOrder = append(l.idOrder, e.EventID)
	if !lim.NoReplay {
		l.entries = append(l.entries, e)
		l.at = append(l.at, now)
	}
	l.trim(now, lim)
	res := AppendResult{Seq: e.Seq, Prev: prev, Epoch: s.epoch, WebhooksVersion: s.versions[typ]}
	if f := lim.Fanout; f != nil && s.webhookCount(typ) > 0 {
		entry := e
		j := &memJob{job: DeliveryJob{ID: fmt.Sprintf("fanout/%d", e.Seq), Sub: "fanout", Kind: "fanout", Entry: &entry, Epoch: s.epoch},
			due: now + f.Lease.Milliseconds(), token: f.Owner + ":" + randomToken(6)}
		s.queue(typ).jobs[j.job.ID] = j
		res.Fanout = &Claimed{Job: j.job, Token: j.token}
	}
	var fns []*memListener
	for ln := range s.listeners[typ] {
		fns = append(fns, ln)
	}
	s.mu.Unlock()
	for _, ln := range fns {
		ln.fn(e, prev)
	}
	return res, nil
}

// trim drops what retention no longer keeps: entries (and remembered
// event IDs) older than the retention, and entries beyond the count.
func (l *memLog) trim(now int64, lim LogLimits) {
	floor := now - lim.Retention.Milliseconds()
	n := 0
	for n < len(l.entries) && (l.at[n] < floor || len(l.entries)-n > lim.MaxRetained) {
		l.trimmed = l.entries[n].Seq
		n++
	}
	if n > 0 {
		l.entries = append(l.entries[:0:0], l.entries[n:]...)
		l.at = append(l.at[:0:0], l.at[n:]...)
	}
	k := 0
	for k < len(l.idOrder) && (l.ids[l.idOrder[k]] < floor || len(l.idOrder)-k > lim.MaxRetained) {
		delete(l.ids, l.idOrder[k])
		k++
	}
	if k > 0 {
		l.idOrder = append(l.idOrder[:0:0], l.idOrder[k:]...)
	}
}

// webhookCount counts typ's webhook subscriptions (with s.mu held).
func (s *memoryStore) webhookCount(typ string) int {
	n := 0
	for _, sub := range s.subs {
		if sub.rec.Type == typ {
			n++
		}
	}
	return n
}

func (s *memoryStore) Read(ctx context.Context, typ string, lim LogLimits, after uint64, limit int) (LogPage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.log(typ)
	l.trim(time.Now().UnixMilli(), lim)
	i := sort.Search(len(l.entries), func(i int) bool { return l.entries[i].Seq > after })
	end := min(len(l.entries), i+limit)
	return LogPage{Epoch: s.epoch, Entries: append([]LogEntry(nil), l.entries[i:end]...), Head: l.head, Trimmed: l.trimmed}, nil
}

func (s *memoryStore) Head(ctx context.Context, typ string, lim LogLimits) (LogPage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.log(typ)
	l.trim(time.Now().UnixMilli(), lim)
	return LogPage{Epoch: s.epoch, Head: l.head, Trimmed: l.trimmed}, nil
}

func (s *memoryStore) Listen(typ string, fn func(LogEntry, uint64)) (func(), error) {
	ln := &memListener{fn: fn}
	s.mu.Lock()
	if s.listeners == nil {
		s.listeners = map[string]map[*memListener]struct{}{}
	}
	if s.listeners[typ] == nil {
		s.listeners[typ] = map[*memListener]struct{}{}
	}
	s.listeners[typ][ln] = struct{}{}
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.listeners[typ], ln)
		s.mu.Unlock()
	}, nil
}

func (s *memoryStore) live(sub *memSub, now int64) bool {
	return sub != nil && (sub.rec.Expiry == 0 || sub.rec.Expiry > now)
}

func (s *memoryStore) PutWebhook(ctx context.Context, rec *WebhookRecord, b Bounds) (bool, WebhookStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().UnixMilli()
	if old := s.subs[rec.ID]; s.live(old, now) {
		if old.rec.Secret != rec.Secret {
			old.rec.OldSecret, old.rec.OldUntil = old.rec.Secret, rec.OldUntil
			old.rec.Secret = rec.Secret
		}
		old.rec.Expiry, old.rec.Effective, old.rec.Pending = rec.Expiry, rec.Effective, rec.Pending
		st := old.status
		old.status.Suspended = false
		s.versions[rec.Type]++
		return true, st, nil
	}
	var count, pcount, bytes, pbytes int64
	for _, sub := range s.subs {
		if !s.live(sub, now) {
			continue
		}
		count++
		bytes += sub.rec.Size()
		if sub.rec.PrincipalKey == rec.PrincipalKey {
			pcount++
			pbytes += sub.rec.Size()
		}
	}
	switch size := rec.Size(); {
	case count >= b.MaxCount:
		return false, WebhookStatus{}, &BoundError{Bound: "MaxSubscriptions", Max: b.MaxCount}
	case pcount >= b.MaxCountPerPrincipal:
		return false, WebhookStatus{}, &BoundError{Bound: "MaxSubscriptions", PerPrincipal: true, Max: b.MaxCountPerPrincipal}
	case bytes+size > b.MaxBytes:
		return false, WebhookStatus{}, &BoundError{Bound: "MaxSubscriptionBytes", Max: b.MaxBytes}
	case pbytes+size > b.MaxBytesPerPrincipal:
		return false, WebhookStatus{}, &BoundError{Bound: "MaxSubscriptionBytes", PerPrincipal: true, Max: b.MaxBytesPerPrincipal}
	}
	s.subs[rec.ID] = &memSub{rec: *rec}
	s.versions[rec.Type]++
	return false, WebhookStatus{}, nil
}

func (s *memoryStore) GetWebhooks(ctx context.Context, ids []string) ([]*WebhookRecord, []WebhookStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().UnixMilli()
	recs := make([]*WebhookRecord, len(ids))
	sts := make([]WebhookStatus, len(ids))
	for i, id := range ids {
		if sub := s.subs[id]; s.live(sub, now) {
			r := sub.rec
			recs[i], sts[i] = &r, sub.status
		}
	}
	return recs, sts, nil
}

func (s *memoryStore) DeleteWebhook(ctx context.Context, id string) (*WebhookRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := s.subs[id]
	if sub == nil {
		return nil, nil
	}
	delete(s.subs, id)
	s.versions[sub.rec.Type]++
	if !s.live(sub, time.Now().UnixMilli()) {
		return nil, nil
	}
	r := sub.rec
	return &r, nil
}

func (s *memoryStore) Webhooks(ctx context.Context, typ string) (uint64, []*WebhookRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().UnixMilli()
	var out []*WebhookRecord
	for _, sub := range s.subs {
		if sub.rec.Type == typ && !sub.rec.Pending && s.live(sub, now) {
			r := sub.rec
			out = append(out, &r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return s.versions[typ], out, nil
}

func (s *memoryStore) ExpireWebhooks(ctx context.Context, now time.Time, max int) ([]*WebhookRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*WebhookRecord
	for id, sub := range s.subs {
		if len(out) >= max {
			break
		}
		if !s.live(sub, now.UnixMilli()) {
			delete(s.subs, id)
			s.versions[sub.rec.Type]++
			r := sub.rec
			out = append(out, &r)
		}
	}
	return out, nil
}

func (s *memoryStore) RecordAttempt(ctx context.Context, id string, failure Failure, now time.Time, p SuspendPolicy) (WebhookStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := s.subs[id]
	if sub == nil {
		return WebhookStatus{}, nil
	}
	p.apply(&sub.status, failure, now)
	return sub.status, nil
}

func (s *memoryStore) queue(typ string) *memQueue {
	q := s.queues[typ]
	if q == nil {
		q = &memQueue{jobs: map[string]*memJob{}, pending: map[string]map[uint64]int{}, gapped: map[string]bool{}}
		s.queues[typ] = q
	}
	return q
}

func (s *memoryStore) Enqueue(ctx context.Context, typ string, jobs []DeliveryJob, maxPending int) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queue(typ)
	now := time.Now().UnixMilli()
	var gapped []string
	for _, j := range jobs {
		if _, ok := q.jobs[j.ID]; ok {
			continue
		}
		if j.Kind == "event" {
			n := 0
			for _, c := range q.pending[j.Sub] {
				n += c
			}
			if n >= maxPending {
				if !q.gapped[j.Sub] {
					q.gapped[j.Sub] = true
					gapped = append(gapped, j.Sub)
				}
				continue
			}
			if q.pending[j.Sub] == nil {
				q.pending[j.Sub] = map[uint64]int{}
			}
			q.pending[j.Sub][j.Entry.Seq]++
		}
		q.jobs[j.ID] = &memJob{job: j, due: now}
	}
	return gapped, nil
}

func (s *memoryStore) Claim(ctx context.Context, typ, owner string, now time.Time, lease time.Duration, max int) ([]Claimed, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queue(typ)
	var due []*memJob
	for _, j := range q.jobs {
		if j.due <= now.UnixMilli() {
			due = append(due, j)
		}
	}
	sort.Slice(due, func(a, b int) bool {
		if due[a].due != due[b].due {
			return due[a].due < due[b].due
		}
		return due[a].job.ID < due[b].job.ID
	})
	var out []Claimed
	for _, j := range due[:min(len(due), max)] {
		j.due = now.Add(lease).UnixMilli()
		j.token = owner + ":" + randomToken(6)
		c := Claimed{Job: j.job, Token: j.token}
		c.Watermark = q.lowest(j.job.Sub)
		out = append(out, c)
	}
	return out, nil
}

func (q *memQueue) lowest(sub string) uint64 {
	var low uint64
	for seq := range q.pending[sub] {
		if low == 0 || seq < low {
			low = seq
		}
	}
	return low
}

func (s *memoryStore) Finish(ctx context.Context, typ string, c Claimed) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queue(typ)
	j := q.jobs[c.Job.ID]
	if j == nil || j.token != c.Token {
		return nil
	}
	delete(q.jobs, c.Job.ID)
	if c.Job.Kind == "event" {
		if p := q.pending[c.Job.Sub]; p != nil {
			if p[c.Job.Entry.Seq]--; p[c.Job.Entry.Seq] <= 0 {
				delete(p, c.Job.Entry.Seq)
			}
			if len(p) == 0 {
				delete(q.pending, c.Job.Sub)
			}
		}
		delete(q.gapped, c.Job.Sub)
	}
	return nil
}

func (s *memoryStore) Retry(ctx context.Context, typ string, c Claimed, due time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.queue(typ).jobs[c.Job.ID]
	if j == nil || j.token != c.Token {
		return nil
	}
	j.job.Attempts, j.job.First, j.job.Paused = c.Job.Attempts, c.Job.First, c.Job.Paused
	j.due, j.token = due.UnixMilli(), ""
	return nil
}

func (s *memoryStore) Watermark(ctx context.Context, typ, sub string) (uint64, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	low := s.queue(typ).lowest(sub)
	return low, low != 0, nil
}

func (s *memoryStore) DropQueued(ctx context.Context, typ, sub string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queue(typ)
	for id, j := range q.jobs {
		if j.job.Sub == sub {
			delete(q.jobs, id)
		}
	}
	delete(q.pending, sub)
	delete(q.gapped, sub)
	return nil
}

func (s *memoryStore) Resume(ctx context.Context, typ, sub string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().UnixMilli()
	for _, j := range s.queue(typ).jobs {
		if j.job.Sub == sub && j.token == "" && j.due > now {
			j.due = now
		}
	}
	return nil
}

func (s *memoryStore) Verified(ctx context.Context, key string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	until, ok := s.verified[key]
	if ok && time.Now().After(until) {
		delete(s.verified, key)
		ok = false
	}
	return ok, nil
}

func (s *memoryStore) SetVerified(ctx context.Context, key string, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	for k, until := range s.verified {
		if now.After(until) {
			delete(s.verified, k)
		}
	}
	s.verified[key] = now.Add(ttl)
	return nil
}

func (s *memoryStore) Interest(ctx context.Context, typ, key string, until time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.interest[typ] == nil {
		s.interest[typ] = map[string]time.Time{}
	}
	s.interest[typ][key] = until
	return nil
}

func (s *memoryStore) DropInterest(ctx context.Context, typ, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.interest[typ], key)
	return nil
}

func (s *memoryStore) Watcher(ctx context.Context, typ, owner string, now time.Time, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, until := range s.interest[typ] {
		if !until.After(now) {
			delete(s.interest[typ], k)
		}
	}
	w := s.watchers[typ]
	if len(s.interest[typ]) == 0 {
		if w.owner == owner {
			delete(s.watchers, typ)
		}
		return false, nil
	}
	if w.owner == "" || w.owner == owner || !w.until.After(now) {
		s.watchers[typ] = memWatch{owner: owner, until: now.Add(ttl)}
		return true, nil
	}
	return false, nil
}
