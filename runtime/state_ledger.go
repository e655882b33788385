package runtime

import (
	"context"
	"errors"
	"sync"
	"time"
)

// StateLedger records which requestStates were used, for single-use mode
// (Options.SingleUseState, Options.SingleUseTools, Tool.SingleUseState): a
// state whose ID was
// spent once is refused the next time, so one answer runs a tool once. The
// in-memory default serves one process; replicas share one in Redis
// (redisstore's Configure sets it).
type StateLedger interface {
	// Spend records id as used until until (the state's expiry, after which
	// the seal refuses it anyway) and reports whether this was its first use.
	Spend(ctx context.Context, id string, until time.Time) (first bool, err error)
}

// ErrLedgerFull: the in-memory ledger holds its limit of states that have
// not expired yet. Spend fails rather than forget one, so that a state is
// never accepted twice.
var ErrLedgerFull = errors.New("mcpgen: too many single-use requestStates outstanding")

// MemoryStateLedger is the default StateLedger: the spent IDs of this
// process until their states expire, at most Limit of them.
type MemoryStateLedger struct {
	// Limit bounds the IDs kept; 0 means 100,000.
	Limit int

	mu    sync.Mutex
	spent map[string]time.Time
	now   func() time.Time // tests
}

func (l *MemoryStateLedger) limit() int {
	if l.Limit <= 0 {
		return 100_000
	}
	return l.Limit
}

// Spend implements StateLedger.
func (l *MemoryStateLedger) Spend(_ context.Context, id string, until time.Time) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if l.now != nil {
		now = l.now()
	}
	if l.spent == nil {
		l.spent = map[string]time.Time{}
	}
	if exp, ok := l.spent[id]; ok && now.Before(exp) {
		return false, nil
	}
	if len(l.spent) >= l.limit() {
		for k, exp := range l.spent {
			if !now.Before(exp) {
				delete(l.spent, k)
			}
		}
		if len(l.spent) >= l.limit() {
			return false, ErrLedgerFull
		}
	}
	l.spent[id] = until
	return true, nil
}
