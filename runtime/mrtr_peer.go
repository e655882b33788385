package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/reqstate"
)

// mrtrPeer is the 2026-07-28 implementation of peer: multi round-trip
// requests (SEP-2322). A server-to-client request is answered from the
// retry's inputResponses (or from the answers of earlier rounds sealed in
// requestState); without an answer it is recorded as an input request under
// its key and the caller gets ErrInputRequired. When the handler returns, any
// recorded question turns the round into an input_required result, whatever
// the handler returned, so a handler that swallows ErrInputRequired (or asks
// several independent questions before returning) still yields one round
// carrying all of them.
//
// The replay rule this imposes on handlers: each round runs the handler
// again from the start, so work done before an Elicit (or CreateMessage, or
// ListRoots) may run again on the retry. Keep that work idempotent or move it
// after the last question, and carry small values across rounds with
// Call.SetState / Call.State. An answer is bound to its question (method and
// params): a replay that asks something else under the same key (another
// message, another schema) gets the new question asked, never the old
// answer, so questions must not change between rounds for the call to
// finish (no timestamps in messages).
type mrtrPeer struct {
	meta     *requestMeta
	stream   responseStream
	progress json.RawMessage

	mu      sync.Mutex
	answers map[string]reqstate.Answer // answers available in this round, by key
	used    map[string]reqstate.Answer // answers the handler consumed, bound to their questions
	asked   map[string]inputRequest    // questions without an answer
	invalid *Error                     // a malformed answer: the round fails with it
	wait    *roundWait                 // when this round's answers were asked (roundWait, below); nil in a first round
}

// inputRequest is one entry of an input_required result's inputRequests.
type inputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params"`
	digest string // reqstate.QuestionDigest(Method, Params)
}

func newMRTRPeer(meta *requestMeta, stream responseStream, answers map[string]reqstate.Answer, progress json.RawMessage) *mrtrPeer {
	return &mrtrPeer{
		meta: meta, stream: stream, answers: answers, progress: progress,
		used: map[string]reqstate.Answer{}, asked: map[string]inputRequest{},
	}
}

// request answers from this round's answers or records the question. Call
// has already checked that the client declared the capability method needs.
func (p *mrtrPeer) request(ctx context.Context, key, method string, params any) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q := reqstate.QuestionDigest(method, params)
	p.mu.Lock()
	defer p.mu.Unlock()
	if ans, ok := p.answers[key]; ok && (ans.Question == "" || ans.Question == q) {
		if err := checkAnswerShape(method, ans.Result); err != nil {
			if p.invalid == nil {
				p.invalid = NewError(CodeInvalidParams, "inputResponses[%q] is not a valid %s result: %v", key, method, err)
			}
			return nil, p.invalid
		}
		p.used[key] = reqstate.Answer{Question: q, Result: ans.Result}
		return ans.Result, nil
	}
	if _, dup := p.asked[key]; !dup {
		p.asked[key] = inputRequest{Method: method, Params: params, digest: q}
	}
	return nil, fmt.Errorf("%w: %s %q", ErrInputRequired, method, key)
}

func (p *mrtrPeer) notify(ctx context.Context, method string, params any) error {
	return p.stream.notify(ctx, method, params)
}

func (p *mrtrPeer) capabilities() ClientCapabilities { return p.meta.Capabilities }

// client is what the request's own _meta declares: there is no session.
func (p *mrtrPeer) client() clientFacts {
	return clientFacts{version: p.meta.ProtocolVersion, info: p.meta.ClientInfo, caps: p.meta.Capabilities}
}

// sessionRoots is nil: with no session to keep them, Call.Roots asks in the
// round.
func (p *mrtrPeer) sessionRoots() rootsSource      { return nil }
func (p *mrtrPeer) logLevel() LogLevel             { return p.meta.LogLevel }
func (p *mrtrPeer) progressToken() json.RawMessage { return p.progress }

// elicitationID is empty: 2026-07-28 drops elicitationId (an answer is bound
// to its question by the input request key and requestState).
func (p *mrtrPeer) urlMode() urlMode { return urlMode{supported: true} }

// requireURL ends the round with the URL elicitations as input requests,
// asked again on every retry that still needs them.
func (p *mrtrPeer) requireURL(keys []string, list []urlParams) error {
	for i, params := range list {
		p.require(keys[i], methodElicit, params)
	}
	return fmt.Errorf("%w: URL elicitation required", ErrInputRequired)
}

// carriesMeta: a 2026-07-28 question must be asked identically in every
// round (requestState binds its answer to a digest of its params).
func (p *mrtrPeer) carriesMeta() bool { return false }

// outstanding returns the unanswered questions, or nil.
func (p *mrtrPeer) outstanding() map[string]inputRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.asked) == 0 {
		return nil
	}
	return p.asked
}

// consumed returns the answers the handler used in this round; they travel
// in the next requestState so that the replay finds them again.
func (p *mrtrPeer) consumed() map[string]reqstate.Answer {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used
}

// carried is how many answers the round brought (with those of earlier
// rounds).
func (p *mrtrPeer) carried() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.answers)
}

// consumedCount is how many of them the handler has taken.
func (p *mrtrPeer) consumedCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.used)
}

func (p *mrtrPeer) malformed() *Error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.invalid
}

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

// require records a question even when this round has its answer: the
// handler found the answer not enough yet (RequireURL: the out-of-band
// step has not finished), so the client is asked again.
func (p *mrtrPeer) require(key, method string, params any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked[key] = inputRequest{Method: method, Params: params, digest: reqstate.QuestionDigest(method, params)}
}
