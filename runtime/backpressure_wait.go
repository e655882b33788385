package runtime

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errStreamFinished: the stream carried its last response (or its session
// ended); nothing more can ride it.
var errStreamFinished = errors.New("mcpgen: the stream is finished")

// frame is one outbound message, encoded once.
type frame struct {
	data   []byte
	final  bool // a response to a request that arrived on this stream
	status int  // the HTTP status of a final frame written as JSON; 0 means 200
	// unstored frames go out without an event ID and are not kept for
	// Last-Event-ID: keep-alive pings, which a resumed stream need not repeat.
	unstored bool
}

// backpressureWait is the bounded buffer of one stream. While the stream is
// alive and the buffer is full, a sender waits for room until its context
// ends or the stream finishes. Nothing is dropped, and nothing spills to
// another stream because this one is busy: the only ways out of push are
// "queued", "your context ended" and "this stream is finished".
//
// Final responses (pushFinal) never wait: a stream carries at most one per
// request it answers, so the buffer stays bounded by size plus that count.
type backpressureWait struct {
	mu       sync.Mutex
	size     int
	buf      []frame
	finished bool
	refusing bool          // no more requests or notifications, only final responses
	room     chan struct{} // closed when room frees or the stream finishes; nil when nobody waits
	avail    chan struct{} // closed when a frame arrives or the stream finishes; nil when nobody waits
	ended    chan struct{} // closed when the stream finishes; made by finishedChan
}

func newBackpressureWait(size int) *backpressureWait {
	if size <= 0 {
		size = 1
	}
	return &backpressureWait{size: size}
}

// push queues f, waiting for room while the buffer is full. A caller whose
// context has already ended sends nothing.
func (b *backpressureWait) push(ctx context.Context, f frame) error {
	return b.pushObserved(ctx, f, nil)
}

// pushObserved is push telling onWait (when not nil) how long each wait for
// room lasted.
func (b *backpressureWait) pushObserved(ctx context.Context, f frame, onWait func(time.Duration)) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b.mu.Lock()
		if b.finished || b.refusing {
			b.mu.Unlock()
			return errStreamFinished
		}
		if len(b.buf) < b.size {
			b.buf = append(b.buf, f)
			b.signalAvail()
			b.mu.Unlock()
			return nil
		}
		if b.room == nil {
			b.room = make(chan struct{})
		}
		room := b.room
		b.mu.Unlock()
		var start time.Time
		if onWait != nil {
			start = time.Now()
		}
		select {
		case <-room:
		case <-ctx.Done():
		}
		if onWait != nil {
			onWait(time.Since(start))
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// pushFinal queues a response without waiting. It fails only when the stream
// is finished.
func (b *backpressureWait) pushFinal(f frame) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return errStreamFinished
	}
	f.final = true
	b.buf = append(b.buf, f)
	b.signalAvail()
	return nil
}

// pop takes the oldest frame. ok is false when the buffer is empty; wait is
// then a channel closed when that may have changed.
func (b *backpressureWait) pop() (f frame, ok bool, wait <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf) == 0 {
		if b.finished {
			return frame{}, false, closedChan
		}
		if b.avail == nil {
			b.avail = make(chan struct{})
		}
		return frame{}, false, b.avail
	}
	f = b.buf[0]
	b.buf[0] = frame{}
	b.buf = b.buf[1:]
	if len(b.buf) == 0 {
		b.buf = b.buf[:0:0] // let the backing array go
	}
	if b.room != nil {
		close(b.room)
		b.room = nil
	}
	return f, true, nil
}

// unpop puts f back at the head (a writer that lost its connection mid-frame
// hands the frame to the next writer).
func (b *backpressureWait) unpop(f frame) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append([]frame{f}, b.buf...)
	b.signalAvail()
}

// finish ends the stream: waiting senders get errStreamFinished, queued
// frames stay for the writer to drain.
func (b *backpressureWait) finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	if b.room != nil {
		close(b.room)
		b.room = nil
	}
	if b.ended != nil {
		close(b.ended)
	}
	b.signalAvail()
}

// finishedChan is closed once the stream finishes (or abandoned): a sender
// that holds the stream open for long learns that nobody will read it.
func (b *backpressureWait) finishedChan() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended == nil {
		b.ended = make(chan struct{})
		if b.finished {
			close(b.ended)
		}
	}
	return b.ended
}

// refuse ends the stream for everything but the final responses still
// owed: waiting senders get errStreamFinished, responses are queued as
// before. The session of the stream ended; its running requests still answer.
func (b *backpressureWait) refuse() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refusing = true
	if b.room != nil {
		close(b.room)
		b.room = nil
	}
}

// abandon finishes the stream and lets go of what it buffered: nobody can
// read it any more.
func (b *backpressureWait) abandon() {
	b.mu.Lock()
	b.buf = nil
	b.mu.Unlock()
	b.finish()
}

// drained reports whether the stream is finished and every frame was taken.
func (b *backpressureWait) drained() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.finished && len(b.buf) == 0
}

func (b *backpressureWait) signalAvail() {
	if b.avail != nil {
		close(b.avail)
		b.avail = nil
	}
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// tryPush queues f only if there is room now (keep-alive pings never wait).
func (b *backpressureWait) tryPush(f frame) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished || b.refusing || len(b.buf) >= b.size {
		return false
	}
	b.buf = append(b.buf, f)
	b.signalAvail()
	return true
}
