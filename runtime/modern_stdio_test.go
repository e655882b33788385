package runtime

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"
)

// stdioOut collects what serveModernStdio sends.
type stdioOut struct {
	mu   sync.Mutex
	msgs []map[string]any
	sent chan struct{}
}

func (o *stdioOut) send(ctx context.Context, b []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var v map[string]any
	_ = json.Unmarshal(b, &v)
	o.mu.Lock()
	o.msgs = append(o.msgs, v)
	o.mu.Unlock()
	if o.sent != nil {
		o.sent <- struct{}{}
	}
	return nil
}

func stdioRequest(id any, method string, params map[string]any, meta map[string]any) *message {
	if params == nil {
		params = map[string]any{}
	}
	if meta != nil {
		params["_meta"] = meta
	}
	idb, _ := json.Marshal(id)
	pb, _ := json.Marshal(params)
	m := &message{JSONRPC: "2.0", ID: idb, Method: method, Params: pb}
	m.decodeParams(paramsIn(index(coreMethods), method)) // as readMessages does
	return m
}

func stdMeta(caps map[string]any) map[string]any {
	return map[string]any{metaProtocolVersion: Version20260728, metaClientCapabilities: caps}
}

func TestModernStdio(t *testing.T) {
	leakCheck(t)
	s := newTestServer(t, elicitationTool(), progressLogTool())
	ctx := context.Background()

	t.Run("era detection", func(t *testing.T) {
		if !s.stdio.isModernStdio(stdioRequest(1, "tools/list", nil, stdMeta(map[string]any{}))) {
			t.Error("a request with modern _meta is modern")
		}
		if s.stdio.isModernStdio(stdioRequest(1, "initialize", map[string]any{"protocolVersion": "2025-11-25"}, nil)) {
			t.Error("initialize is legacy")
		}
	})

	t.Run("mrtr round trip", func(t *testing.T) {
		out := &stdioOut{}
		s.stdio.serveModernStdio(ctx, stdioRequest(1, "tools/call", map[string]any{"name": "test_input_required_result_elicitation"}, stdMeta(allCaps)), out.send, "c:test")
		res := out.msgs[0]["result"].(map[string]any)
		if res["resultType"] != "input_required" {
			t.Fatalf("got %v", out.msgs)
		}
		state := res["requestState"].(string)
		out = &stdioOut{}
		s.stdio.serveModernStdio(ctx, stdioRequest(2, "tools/call", map[string]any{"name": "test_input_required_result_elicitation", "requestState": state,
			"inputResponses": map[string]any{"user_name": accept(map[string]any{"name": "Stdio"})}}, stdMeta(allCaps)), out.send, "c:test")
		if got := jsonOf(out.msgs[0]["result"].(map[string]any)["content"]); got != `[{"text":"Hello, Stdio!","type":"text"}]` {
			t.Errorf("content = %s", got)
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			msg  *message
			code int
		}{
			{stdioRequest(3, "tools/list", nil, map[string]any{metaProtocolVersion: Version20260728}), CodeInvalidParams},
			{stdioRequest(4, "tools/list", nil, stdMeta(nil)), CodeInvalidParams},
			{stdioRequest(5, "tools/list", nil, map[string]any{metaProtocolVersion: "v9", metaClientCapabilities: map[string]any{}}), CodeUnsupportedVersion},
			{stdioRequest(6, "ping", nil, stdMeta(map[string]any{})), CodeMethodNotFound},
		} {
			out := &stdioOut{}
			s.stdio.serveModernStdio(ctx, tc.msg, out.send, "c:test")
			e, _ := out.msgs[0]["error"].(map[string]any)
			if e == nil || int(e["code"].(float64)) != tc.code || string(tc.msg.ID) != jsonOf(out.msgs[0]["id"]) {
				t.Errorf("%s: got %v, want code %d with the id", tc.msg.Method, out.msgs, tc.code)
			}
		}
	})

	t.Run("progress and logs", func(t *testing.T) {
		out := &stdioOut{}
		meta := stdMeta(map[string]any{})
		meta["progressToken"] = "tok"
		meta[metaLogLevel] = "error"
		s.stdio.serveModernStdio(ctx, stdioRequest(7, "tools/call", map[string]any{"name": "test_tool_with_progress"}, meta), out.send, "c:test")
		var methods []string
		for _, m := range out.msgs {
			if mm, ok := m["method"].(string); ok {
				methods = append(methods, mm)
			}
		}
		if jsonOf(methods) != `["notifications/progress","notifications/progress","notifications/progress","notifications/message"]` {
			t.Errorf("notifications = %v", methods)
		}
		if out.msgs[len(out.msgs)-1]["id"] == nil {
			t.Error("the response comes last")
		}
	})

	t.Run("listen until cancelled", func(t *testing.T) {
		lctx, cancel := context.WithCancel(ctx)
		out := &stdioOut{sent: make(chan struct{}, 4)}
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.stdio.serveModernStdio(lctx, stdioRequest("sub", "subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, stdMeta(map[string]any{})), out.send, "c:test")
		}()
		<-out.sent // the acknowledgement
		s.NotifyToolListChanged()
		select {
		case <-out.sent:
		case <-time.After(5 * time.Second):
			t.Fatal("no list_changed on the stdio subscription")
		}
		cancel()
		<-done
		out.mu.Lock()
		defer out.mu.Unlock()
		if len(out.msgs) != 2 || out.msgs[1]["method"] != "notifications/tools/list_changed" {
			t.Errorf("got %v; a cancelled listen sends nothing more", out.msgs)
		}
	})
}
