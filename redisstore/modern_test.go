package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// modernCall posts one 2026-07-28 tools/call "ask" (no session: everything in
// _meta) and returns its result object.
func modernCall(ctx context.Context, c *cluster, url string, params map[string]any) (map[string]any, error) {
	params["name"] = "ask"
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "replica-test", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
	}
	s := &session{c: c}
	resp, err := s.do(ctx, http.MethodPost, url, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out *msg
	err = readMessages(resp, func(m *msg) (bool, error) {
		if m.Method == "" {
			out = m
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("tools/call: no response")
	}
	if out.Error != nil {
		return nil, fmt.Errorf("tools/call: JSON-RPC error %d: %s", out.Error.Code, out.Error.Message)
	}
	var res map[string]any
	return res, json.Unmarshal(out.Result, &res)
}

// The 2026-07-28 era needs no Redis, only the shared StateKey: round one on
// one replica, the retry with the answer on another, and the handler's state
// comes back sealed in requestState. A replica with another key refuses it.
func TestMultiRoundTripCrossesReplicasWithTheSharedKey(t *testing.T) {
	addr := redisSpec(t)
	prefix := testPrefix(t)
	rs := startReplicas(t, 2, addr, prefix)
	stranger := startReplicas(t, 1, addr, prefix, "-state-key", "another key of another deployment")[0]
	c := newCluster(rs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	first, err := modernCall(ctx, c, rs[0].url, map[string]any{"arguments": map[string]any{"n": 3}})
	if err != nil {
		t.Fatal(err)
	}
	state, _ := first["requestState"].(string)
	reqs, _ := first["inputRequests"].(map[string]any)
	if first["resultType"] != "input_required" || state == "" || reqs["pick"] == nil {
		t.Fatalf("round one: %v", first)
	}
	retry := func(url string) (map[string]any, error) {
		return modernCall(ctx, c, url, map[string]any{"arguments": map[string]any{"n": 3}, "requestState": state,
			"inputResponses": map[string]any{"pick": map[string]any{"action": "accept", "content": map[string]any{"value": answerValue(3)}}}})
	}
	second, err := retry(rs[1].url)
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprint(second["content"])
	if second["resultType"] != "complete" || !strings.Contains(text, `"state":"state of call 3"`) || !strings.Contains(text, fmt.Sprintf(`"value":%d`, answerValue(3))) {
		t.Fatalf("retry on the other replica: %v", second)
	}
	res, err := retry(stranger.url)
	if err == nil {
		t.Fatalf("a replica with another StateKey took the requestState: %v", res)
	}
	t.Logf("a replica with another key answers: %v %v", res, err)
}

// Single-use requestState on replicas: the retry with the answer runs once on
// whichever replica it reaches, and the same retry replayed to any replica,
// the one that ran it or another, is refused, because the spent state is
// recorded in Redis (SET NX) and not in one process.
func TestSingleUseStateIsSpentOnEveryReplica(t *testing.T) {
	addr := redisSpec(t)
	rs := startReplicas(t, 3, addr, testPrefix(t), "-single-use")
	c := newCluster(rs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	first, err := modernCall(ctx, c, rs[0].url, map[string]any{"arguments": map[string]any{"n": 4}})
	if err != nil {
		t.Fatal(err)
	}
	state, _ := first["requestState"].(string)
	if first["resultType"] != "input_required" || state == "" {
		t.Fatalf("round one: %v", first)
	}
	retry := func(url string) (map[string]any, error) {
		return modernCall(ctx, c, url, map[string]any{"arguments": map[string]any{"n": 4}, "requestState": state,
			"inputResponses": map[string]any{"pick": map[string]any{"action": "accept", "content": map[string]any{"value": answerValue(4)}}}})
	}
	if res, err := retry(rs[1].url); err != nil || res["resultType"] != "complete" {
		t.Fatalf("first retry: %v, %v", res, err)
	}
	for i, r := range []*replica{rs[1], rs[0], rs[2]} {
		res, err := retry(r.url)
		if err == nil || !strings.Contains(err.Error(), "already used") {
			t.Fatalf("replay %d (replica %s): %v, %v; want the error \"already used\"", i+1, r.id, res, err)
		}
	}
}
