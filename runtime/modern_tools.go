package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
)

// listTools answers tools/list: every tool in registration order, in one
// page, with the cache hints 2026-07-28 requires. tools/list never needs
// input from the client.
func (m *modernCore) listTools(req *modernRequest) modernReply {
	if req.params.Cursor != nil {
		return replyError(0, NewError(CodeInvalidParams, "invalid cursor: this server returns every tool in one page"))
	}
	m.s.mu.RLock()
	defs := make([]json.RawMessage, len(m.s.tools))
	for i, t := range m.s.tools {
		defs[i] = t.Definition
	}
	m.s.mu.RUnlock()
	return m.complete(struct {
		Tools      []json.RawMessage `json:"tools"`
		TTLMs      int64             `json:"ttlMs"`
		CacheScope string            `json:"cacheScope"`
	}{defs, modernListTTL.Milliseconds(), modernCacheScope})
}

// callTool answers tools/call: one round of a possibly multi round-trip
// call. The handler runs from the start in every round (see mrtrPeer for the
// replay rule); answers of earlier rounds come back from requestState.
func (m *modernCore) callTool(ctx context.Context, req *modernRequest, stream modernStream) modernReply {
	p := req.params
	if p.Name == nil {
		return replyError(0, NewError(CodeInvalidParams, "tools/call params: name is required"))
	}
	t := m.tool(*p.Name)
	if t == nil {
		return replyError(0, NewError(CodeInvalidParams, "unknown tool %q", *p.Name))
	}
	args := p.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if req.header != nil {
		if e := checkHeaderParams(req.header, t.headerParams, args); e != nil {
			return replyError(http.StatusBadRequest, e)
		}
	}
	answers := map[string]answer{}
	var handlerState []byte
	var asked map[string]string
	var digest string // argsDigest(args), computed only when a requestState needs it
	if p.RequestState != nil {
		var err error
		if digest, err = argsDigest(args); err != nil {
			return replyError(0, NewError(CodeInvalidParams, "tools/call: %v", err))
		}
		st, err := m.openState(ctx, t, *p.RequestState, digest)
		if err != nil {
			return replyError(0, NewError(CodeInvalidParams, "%v", err))
		}
		maps.Copy(answers, st.Answers)
		handlerState, asked = st.Handler, st.Asked
		if asked == nil {
			asked = map[string]string{} // answers count only for questions of the last round
		}
	}
	if e := mergeInputResponses(answers, asked, p.InputResponses); e != nil {
		return replyError(0, e)
	}

	if res := t.validate(args); res != nil {
		return m.complete(res)
	}

	peer := newMRTRPeer(req.meta, stream, answers)
	call := newCall(peer, handlerState, func() string { return "" }) // 2026-07-28 drops elicitationId
	res, err := m.s.runHandler(ctx, t, call, args)

	switch {
	case peer.malformed() != nil:
		return replyError(0, peer.malformed())
	case errors.Is(err, ErrCapabilityMissing):
		return missingCapabilityReply(err)
	case peer.outstanding() != nil:
		return m.inputRequired(t, args, digest, peer, call)
	}
	var rpcErr *Error
	switch {
	case errors.As(err, &rpcErr):
		return replyError(0, rpcErr)
	case errors.Is(err, ErrInputRequired):
		return replyError(0, NewError(CodeInternalError, "tool %q returned ErrInputRequired without asking the client anything", t.Name))
	case err != nil:
		return m.complete(toolErrorResult(err))
	case res == nil:
		return m.complete(&ToolResult{})
	}
	return m.complete(res)
}

// inputRequired ends a round that has unanswered questions: it seals the
// answers used so far and the handler's state into requestState. digest is
// argsDigest(args) when the round already computed it, otherwise "".
func (m *modernCore) inputRequired(t *registeredTool, args json.RawMessage, digest string, peer *mrtrPeer, call *Call) modernReply {
	if digest == "" {
		var err error
		if digest, err = argsDigest(args); err != nil {
			return replyError(0, NewError(CodeInvalidParams, "tools/call: %v", err))
		}
	}
	open := peer.outstanding()
	asked := make(map[string]string, len(open))
	for k, q := range open {
		asked[k] = q.digest
	}
	token, err := m.sealer.seal(&requestState{
		Method:  "tools/call",
		Name:    t.Name,
		Digest:  digest,
		Answers: peer.consumed(),
		Asked:   asked,
		Handler: call.State(),
	})
	if err != nil {
		return replyError(0, NewError(CodeInternalError, "%v", err))
	}
	return m.result("input_required", struct {
		InputRequests map[string]inputRequest `json:"inputRequests"`
		RequestState  string                  `json:"requestState"`
	}{open, token}, nil)
}

// mergeInputResponses adds the retry's inputResponses to answers, each bound
// to the question asked under its key in the previous round (asked, from
// requestState; without it, answers are taken as they come). Answers of
// earlier rounds win (the client cannot change an answer the handler already
// acted on); keys nobody asked for are ignored. null means none.
func mergeInputResponses(answers map[string]answer, asked map[string]string, raw json.RawMessage) *Error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var in map[string]json.RawMessage
	if !isObjectJSON(raw) || json.Unmarshal(raw, &in) != nil {
		return NewError(CodeInvalidParams, "inputResponses must be an object mapping input request keys to results")
	}
	for k, v := range in {
		if _, done := answers[k]; done {
			continue
		}
		q, open := asked[k]
		if asked != nil && !open {
			continue // not a question of the last round
		}
		answers[k] = answer{Question: q, Result: v}
	}
	return nil
}
