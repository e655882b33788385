package redisstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A client that does not take SSE on its POST gets the call's elicitation on
// its GET stream, which is open on another replica than the one running the
// call; its answer goes to a third replica; the result comes back as JSON on
// the POST.
func TestFallbackReachesTheGETStreamOnAnotherReplica(t *testing.T) {
	_, c, ctx := threeReplicas(t, 30*time.Second)
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	get, err := openGET(ctx, s, c.urls[1])
	if err != nil {
		t.Fatal(err)
	}
	defer get.Body.Close()
	elicitations := make(chan *msg, 1)
	go readEvents(get, func(_ string, m *msg) (bool, error) {
		if m.Method == "elicitation/create" {
			elicitations <- m
		}
		return false, nil
	}, nil)

	const n = 5
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "tools/call",
		"params": map[string]any{"name": "ask", "arguments": map[string]any{"n": n}}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.urls[0], bytes.NewReader(body))
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("MCP-Protocol-Version", s.version)
	type reply struct {
		m   *msg
		err error
	}
	replies := make(chan reply, 1)
	go func() {
		resp, err := c.http.Do(req)
		if err != nil {
			replies <- reply{nil, err}
			return
		}
		defer resp.Body.Close()
		var out *msg
		err = readMessages(resp, func(m *msg) (bool, error) { out = m; return true, nil })
		replies <- reply{out, err}
	}()

	var m *msg
	select {
	case m = <-elicitations:
	case r := <-replies:
		t.Fatalf("the call ended before its elicitation reached the GET stream: %+v %v", r.m, r.err)
	case <-time.After(10 * time.Second):
		t.Fatal("the elicitation did not reach the GET stream on the other replica")
	}
	if !strings.Contains(string(m.Params), fmt.Sprintf("call %d", n)) {
		t.Fatalf("GET stream got %s", m.Params)
	}
	ans := map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"action": "accept", "content": map[string]any{"value": answerValue(n)}}}
	if err := s.post(ctx, c.urls[2], ans, http.StatusAccepted); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-replies:
		if r.err != nil || r.m == nil || r.m.Error != nil || !strings.Contains(string(r.m.Result), fmt.Sprintf(`\"value\":%d`, answerValue(n))) {
			t.Fatalf("call result: %+v %v", r.m, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no result after the answer")
	}
}
