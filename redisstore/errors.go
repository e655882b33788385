package redisstore

import (
	"errors"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// UnavailableError is how the store reports that Redis failed or did not
// answer within Options.OpTimeout. Its text is what a client may read,
// "session store unavailable": it names no address and no driver error,
// because the runtime may put it into an error message. What failed and
// why is in Op and Err, and in the store's log (Options.Logger), where
// every failure is written (at most one line a second, with the count of
// the others). errors.Is(err, runtime.ErrStoreUnavailable) is true.
type UnavailableError struct {
	Op  string // what the store was doing: "loading session", ...
	Err error  // the driver's error
}

func (e *UnavailableError) Error() string { return "session store unavailable" }

// Is makes errors.Is(err, runtime.ErrStoreUnavailable) true.
func (e *UnavailableError) Is(target error) bool { return target == runtime.ErrStoreUnavailable }

// errClosed is what the store's operations return after Close.
var errClosed = &UnavailableError{Op: "using the store", Err: errors.New("redisstore: store closed")}

// unavailable wraps a Redis failure of op for the caller, and logs it.
func (s *Store) unavailable(op string, err error) error {
	var ue *UnavailableError
	if errors.As(err, &ue) {
		return ue
	}
	if err == nil {
		err = errors.New("no reply")
	}
	s.failures.log(s, op, err)
	return &UnavailableError{Op: op, Err: err}
}

// failureLog writes Redis failures to the store's log, at most one line a
// second: an outage fails every request, and one line says as much as a
// thousand.
type failureLog struct {
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

const failureLogEvery = time.Second

func (l *failureLog) log(s *Store, op string, err error) {
	l.mu.Lock()
	now := time.Now()
	if now.Sub(l.last) < failureLogEvery {
		l.suppressed++
		l.mu.Unlock()
		return
	}
	others := l.suppressed
	l.last, l.suppressed = now, 0
	l.mu.Unlock()
	if others > 0 {
		s.logger().Warn("redisstore: Redis failed", "op", op, "err", err.Error(), "other failures in the last second", others)
		return
	}
	s.logger().Warn("redisstore: Redis failed", "op", op, "err", err.Error())
}
