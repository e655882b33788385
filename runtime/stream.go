package runtime

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"
)

// errTakenOver: a newer connection resumed the stream; the old writer stops.
var errTakenOver = errors.New("mcpgen: the stream was resumed on another connection")

// stream is one logical outbound stream of a session: the response stream of
// one POST, or the session's standalone GET stream. It outlives the connection
// that carries it: when the client disconnects, frames keep queueing (bounded
// by the backpressureWait) and a GET with Last-Event-ID resumes it on a new
// connection, replaying what the old connection may have lost.
type stream struct {
	id         string
	sess       *session
	q          *backpressureWait
	sse        bool // the client accepts text/event-stream here: senders may use it
	standalone bool // the GET stream
	stdio      bool // the one stream of a stdio connection
	isBus      bool // another replica's GET stream, reached through the SessionBus

	mu       sync.Mutex
	expect   int    // responses still owed (POST streams)
	gen      uint64 // current writer; a resume bumps it
	takeover chan struct{}
	giveUp   *time.Timer // gives the stream up when no writer resumes it in time
	upgraded bool        // went out as SSE: its events are stored and resumable

	wmu        sync.Mutex // held while one event is stored and written
	lastStored string     // the ID of the last event stored, under wmu ("" before the first)

	// startWriter, when set, starts the stream's writer on the first push
	// (a POST whose handler runs on the request's goroutine).
	startWriter func()
	writerOnce  sync.Once
}

// newStream starts a stream of the session. Its ID is unique in the
// session: a count, after the session's ID prefix when replicas share it
// (so that streams of two replicas, or of two local copies of the session
// on one replica, never share events in a shared event store).
func (sess *session) newStream(expect int, sse, standalone bool) *stream {
	sess.mu.Lock()
	sess.nextStream++
	n := sess.nextStream
	sess.mu.Unlock()
	id := strconv.FormatUint(n, 10)
	if p := sess.ids.prefix; p != "" {
		id = p + "." + id
	}
	return &stream{
		id: id, sess: sess, sse: sse, standalone: standalone, expect: expect,
		q: newBackpressureWait(sess.table.opts.streamBuffer),
	}
}

// push queues a request or notification, waiting for room (backpressure).
func (st *stream) push(ctx context.Context, data []byte) error {
	if st.isBus {
		if err := ctx.Err(); err != nil {
			return err
		}
		sent, err := st.sess.sendRemoteGET(ctx, data)
		if err == nil && !sent {
			err = errStreamFinished
		}
		return err
	}
	if st.startWriter != nil {
		st.writerOnce.Do(st.startWriter)
	}
	if st.sess.table.icpt.observing() {
		return st.pushObserved(ctx, frame{data: data})
	}
	return st.q.push(ctx, frame{data: data})
}

// owe records n more requests whose responses this stream carries.
func (st *stream) owe(n int) {
	st.mu.Lock()
	st.expect += n
	st.mu.Unlock()
}

// respond queues the response to one request that arrived on this stream.
// The last response finishes the stream.
func (st *stream) respond(f frame) {
	_ = st.q.pushFinal(f)
	st.answered()
}

// answered records that one request of this stream ended, with or without
// a response (a request the client cancelled gets none).
func (st *stream) answered() {
	st.mu.Lock()
	st.expect--
	last := st.expect <= 0
	st.mu.Unlock()
	if last && !st.standalone && !st.stdio {
		st.q.finish()
	}
}

// attach makes the caller the stream's writer, taking over from any earlier
// connection. The returned channel closes when a newer writer takes over.
func (st *stream) attach() (uint64, <-chan struct{}) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.takeover != nil {
		close(st.takeover)
	}
	if st.giveUp != nil {
		st.giveUp.Stop() // resumed in time
		st.giveUp = nil
	}
	st.gen++
	st.takeover = make(chan struct{})
	return st.gen, st.takeover
}

// detach ends writer gen's turn, if it still has it. A request's stream
// left without a writer is given up after ResumeWindow unless the client
// resumes it (the standalone stream waits for the next GET, bounded by the
// session's idle timeout).
func (st *stream) detach(gen uint64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.gen != gen || st.takeover == nil {
		return
	}
	close(st.takeover)
	st.takeover = nil
	if w := st.sess.table.opts.resumeWindow; w > 0 && !st.standalone && !st.q.drained() {
		st.giveUp = time.AfterFunc(w, func() {
			if !st.attached() {
				st.q.abandon()
			}
		})
	}
}

// attached reports whether some connection currently writes the stream.
func (st *stream) attached() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.takeover != nil
}

func (st *stream) current(gen uint64) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.gen == gen
}

// markUpgraded records that the stream went out as SSE and registers it for
// resumption.
func (st *stream) markUpgraded() {
	st.mu.Lock()
	st.upgraded = true
	st.mu.Unlock()
	st.sess.addStream(st)
}

// emit stores f as the stream's next event and writes it, unless writer gen
// lost the stream, in which case f goes back to the head of the queue. An
// unstored frame goes out without an event ID (the client's Last-Event-ID
// stays that of the event before it).
func (st *stream) emit(ctx context.Context, w *sseWriter, gen uint64, f frame) error {
	st.wmu.Lock()
	defer st.wmu.Unlock()
	if !st.current(gen) {
		st.q.unpop(f)
		return errTakenOver
	}
	if f.unstored || st.sess.ctx.Err() != nil {
		// An ended session's events are gone (DeleteSession), so what its
		// streams still carry (the answers of the calls its end cut short)
		// cannot be resumed: it goes out without an event ID, so that no
		// store hands out an ID this stream already used.
		return w.event("", f.data)
	}
	id, err := st.store(ctx, f.data)
	if err != nil {
		st.q.unpop(f)
		return err
	}
	return w.event(id, f.data)
}

// store appends data to the stream's events; st.wmu is held.
func (st *stream) store(ctx context.Context, data []byte) (string, error) {
	events := st.sess.table.events
	var id string
	var err error
	if se, ok := events.(StreamEventStore); ok {
		id, err = se.AppendAfter(ctx, st.sess.id, st.id, st.lastStored, data)
	} else {
		id, err = events.Append(ctx, st.sess.id, st.id, data)
	}
	if err == nil {
		st.lastStored = id
	}
	return id, err
}

// prime writes the 2025-11-25 priming event (an ID and empty data) and the
// reconnection delay. A StreamEventStore names it without storing it.
func (st *stream) prime(ctx context.Context, w *sseWriter) error {
	st.wmu.Lock()
	defer st.wmu.Unlock()
	var id string
	if se, ok := st.sess.table.events.(StreamEventStore); ok {
		id = se.PrimeAfter(st.sess.id, st.id, st.lastStored)
	} else {
		var err error
		if id, err = st.store(ctx, nil); err != nil {
			return err
		}
	}
	return w.prime(id, st.sess.table.opts.retryInterval)
}

// resume attaches a new writer after lastEventID: it replays every event
// stored after it, then the writer continues with the queue.
func (st *stream) resume(ctx context.Context, w *sseWriter, lastEventID string) (uint64, <-chan struct{}, error) {
	st.wmu.Lock()
	defer st.wmu.Unlock()
	gen, takeover := st.attach()
	_, err := st.sess.table.events.Replay(ctx, st.sess.id, lastEventID, func(id string, data []byte) error {
		return w.event(id, data)
	})
	return gen, takeover, err
}

// pushObserved queues data like st.q.push and reports a wait for room to
// the interceptors.
func (st *stream) pushObserved(ctx context.Context, f frame) error {
	sess := st.sess
	return st.q.pushObserved(ctx, f, func(d time.Duration) {
		sess.table.icpt.emit(ctx, Event{Kind: BackpressureWaited, SessionID: sess.id, ProtocolVersion: sess.version(),
			Transport: sess.transport(), Duration: d})
	})
}

// pump writes the stream's queue to one connection as events until the
// stream is drained (its last response written), the connection ends, or a
// newer connection takes the stream over. Long quiet periods get keep-alive
// comments every keepAlive (none when it is not positive). The POST of a
// request whose response became an event stream and the GET that opens or
// resumes a stream both write through it.
func (st *stream) pump(ctx context.Context, sw *sseWriter, gen uint64, takeover <-chan struct{}, keepAlive time.Duration) {
	var tick <-chan time.Time
	if keepAlive > 0 {
		ticker := time.NewTicker(keepAlive)
		defer ticker.Stop()
		tick = ticker.C
	}
	defer st.detach(gen)
	if st.sess.table.icpt.observing() {
		st.sess.streamEvent(ctx, StreamOpened, "sse")
		defer st.sess.streamEvent(ctx, StreamClosed, "sse")
	}
	for {
		f, ok, wait := st.q.pop()
		if ok && f.data == nil {
			continue // an upgrade marker (StreamAfter)
		}
		if ok {
			if st.emit(ctx, sw, gen, f) != nil {
				return // taken over, or the connection or event store failed
			}
			continue
		}
		if st.q.drained() {
			if !st.standalone {
				st.sess.removeStream(st)
			}
			return // the last response goes out as the handler returns
		}
		if sw.sync() != nil {
			return
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return
		case <-takeover:
			return
		case <-tick:
			if sw.comment() != nil {
				return
			}
		}
	}
}
