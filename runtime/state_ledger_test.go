package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/reqstate"
)

// deleteTool asks user_name before "deleting", and counts deletions.
func deleteTool(deleted *atomic.Int32) Tool {
	return Tool{
		Name: "confirm_delete", Definition: toolDef("confirm_delete", ""),
		Elicitations: []*Elicitation{userNameForm},
		Handler: func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
			var a nameAnswer
			if err := call.Elicit(ctx, userNameForm, "", &a); err != nil {
				return nil, err
			}
			deleted.Add(1)
			return ContentResult(call, []Content{Text("deleted for " + a.Name)}), nil
		},
	}
}

// replayAnswer runs round one of confirm_delete, then sends the same retry
// (one answer, one requestState) three times, and returns the responses.
func replayAnswer(t *testing.T, s *Server) []*modernResp {
	t.Helper()
	c := modernServer(t, s)
	c.caps = map[string]any{"elicitation": map[string]any{}}
	first := c.call("tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{}}).result(t)
	state, _ := first["requestState"].(string)
	if first["resultType"] != "input_required" || state == "" {
		t.Fatalf("round one: %v", first)
	}
	retry := map[string]any{"name": "confirm_delete", "arguments": map[string]any{}, "requestState": state,
		"inputResponses": map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}}}
	var out []*modernResp
	for range 3 {
		out = append(out, c.call("tools/call", retry))
	}
	return out
}

// TestSingleUseStateRunsOnce: in single-use mode (for every tool, for the
// named tools, or set on the tool), one answer with its requestState
// deletes once; the same retry replayed is refused with -32602 and runs
// nothing.
func TestSingleUseStateRunsOnce(t *testing.T) {
	for name, tc := range map[string]struct {
		opts Options
		tool bool
	}{
		"Options.SingleUseState": {opts: Options{SingleUseState: true}},
		"Options.SingleUseTools": {opts: Options{SingleUseTools: []string{"confirm_delete"}}},
		"Tool.SingleUseState":    {tool: true},
	} {
		t.Run(name, func(t *testing.T) { testSingleUse(t, tc.opts, tc.tool) })
	}
}

func testSingleUse(t *testing.T, opts Options, onTool bool) {
	leakCheck(t)
	var deleted atomic.Int32
	s := NewServer(opts)
	t.Cleanup(func() { s.Close() })
	tool := deleteTool(&deleted)
	tool.SingleUseState = onTool
	if err := s.AddTool(tool); err != nil {
		t.Fatal(err)
	}
	resps := replayAnswer(t, s)
	if got := resps[0].result(t); got["resultType"] != "complete" {
		t.Fatalf("first retry: %v", got)
	}
	for i, r := range resps[1:] {
		f := r.final(t)
		e, _ := f["error"].(map[string]any)
		if r.errCode(t) != CodeInvalidParams || !strings.Contains(e["message"].(string), "already used") {
			t.Fatalf("replay %d: %v; want -32602 \"already used\"", i+1, f)
		}
	}
	if n := deleted.Load(); n != 1 {
		t.Fatalf("one answer, replayed, deleted %d times", n)
	}
}

// TestRequestStateIsReusableByDefault documents the default: without
// single-use mode a requestState proves what the server asked and was
// answered, not that the answer is fresh, so a replay runs the tool again.
func TestRequestStateIsReusableByDefault(t *testing.T) {
	leakCheck(t)
	var deleted atomic.Int32
	s := NewServer(Options{})
	t.Cleanup(func() { s.Close() })
	if err := s.AddTool(deleteTool(&deleted)); err != nil {
		t.Fatal(err)
	}
	replayAnswer(t, s)
	if n := deleted.Load(); n != 3 {
		t.Fatalf("deleted %d times; the default is reusable until expiry", n)
	}
}

// TestRequestStateTTLOption: Options.RequestStateTTL sets the expiry sealed
// into requestState.
func TestRequestStateTTLOption(t *testing.T) {
	s := NewServer(Options{RequestStateTTL: time.Minute})
	defer s.Close()
	now := time.Unix(1_800_000_000, 0)
	s.http.modern.rounds.sealer.Now = func() time.Time { return now }
	tok, err := s.http.modern.rounds.sealer.Seal(&reqstate.State{Method: "tools/call", Name: "t", Digest: "d"})
	if err != nil {
		t.Fatal(err)
	}
	s.http.modern.rounds.sealer.Now = func() time.Time { return now.Add(61 * time.Second) }
	if _, err := s.http.modern.rounds.sealer.Open(tok, "tools/call", "t", "d", ""); !errors.Is(err, reqstate.ErrExpired) {
		t.Fatalf("open after 61s with a 1m TTL: %v", err)
	}
}

// TestMemoryStateLedgerBounds: a spent ID is refused until it expires, and
// a full ledger refuses rather than forgets.
func TestMemoryStateLedgerBounds(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	l := &MemoryStateLedger{Limit: 2, now: func() time.Time { return now }}
	ctx := context.Background()
	spend := func(id string, until time.Time) (bool, error) { return l.Spend(ctx, id, until) }
	if ok, err := spend("a", now.Add(time.Minute)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, _ := spend("a", now.Add(time.Minute)); ok {
		t.Fatal("spent twice")
	}
	if ok, _ := spend("b", now.Add(2*time.Minute)); !ok {
		t.Fatal("b")
	}
	if _, err := spend("c", now.Add(time.Minute)); !errors.Is(err, ErrLedgerFull) {
		t.Fatalf("full ledger: %v", err)
	}
	now = now.Add(90 * time.Second) // a expired: its slot is free again
	if ok, err := spend("c", now.Add(time.Minute)); !ok || err != nil {
		t.Fatal(ok, err)
	}
}
