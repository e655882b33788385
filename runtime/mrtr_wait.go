package runtime

import (
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/reqstate"
)

// roundWait is how long the user took to answer in 2026-07-28: the round
// that asked ended at askedAt (sealed in requestState), and the answers this
// retry brought (not those of earlier rounds) were given since.
type roundWait struct {
	askedAt time.Time
	fresh   map[string]bool // keys answered by this retry's inputResponses
	now     func() time.Time
}

// newRoundWait returns the wait of the answers a retry brings, or nil when
// there is no earlier round (or it predates AskedAt).
func newRoundWait(earlier *reqstate.State, answers map[string]reqstate.Answer, now func() time.Time) *roundWait {
	if earlier == nil || earlier.AskedAt == 0 {
		return nil
	}
	w := &roundWait{askedAt: time.UnixMilli(earlier.AskedAt), fresh: map[string]bool{}, now: now}
	for k := range answers {
		if _, old := earlier.Answers[k]; !old {
			w.fresh[k] = true
		}
	}
	return w
}

// waited is how long the answer under key took the user: from the end of
// the round that asked it to now, when the handler reads it; 0 for an answer
// of an earlier round or a question asked just now.
func (p *mrtrPeer) waited(key string) time.Duration {
	w := p.wait
	if w == nil || !w.fresh[key] {
		return 0
	}
	if d := w.now().Sub(w.askedAt); d > 0 {
		return d
	}
	return 0
}
