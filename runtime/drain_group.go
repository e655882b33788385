package runtime

import (
	"context"
	"sync"
)

// drainGroup counts running handlers so that Shutdown can wait for them. It
// is a WaitGroup that may be waited on while handlers still start, and that
// refuses new ones once closed.
type drainGroup struct {
	mu     sync.Mutex
	n      int
	closed bool
	idle   chan struct{} // closed when n drops to 0 while someone waits
}

// add counts one more handler; false once the group is closed.
func (g *drainGroup) add() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.n++
	return true
}

func (g *drainGroup) done() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.n == 0 && g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
}

// close refuses new handlers from now on.
func (g *drainGroup) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
}

// wait closes the group and waits until every handler returned or ctx ends.
func (g *drainGroup) wait(ctx context.Context) error {
	g.mu.Lock()
	g.closed = true
	if g.n == 0 {
		g.mu.Unlock()
		return nil
	}
	if g.idle == nil {
		g.idle = make(chan struct{})
	}
	idle := g.idle
	g.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
