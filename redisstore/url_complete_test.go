package redisstore

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A URL-mode elicitation's out-of-band step finishes on a replica other
// than the one holding the client's GET stream (an OAuth callback lands
// anywhere): CompleteURLElicitation there carries
// notifications/elicitation/complete through the bus to the GET stream.
func TestURLCompletionCrossesReplicas(t *testing.T) {
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
	completions := make(chan *msg, 1)
	go readEvents(get, func(_ string, m *msg) (bool, error) {
		if m.Method == "notifications/elicitation/complete" {
			completions <- m
			return true, nil
		}
		return false, nil
	}, nil)
	m, _, err := s.rpc(ctx, c.urls[2], "tools/call", map[string]any{"name": "complete_url",
		"arguments": map[string]any{"sessionId": s.id, "elicitationId": "e-42"}})
	if err != nil || m.Error != nil || !strings.Contains(string(m.Result), "completed") {
		t.Fatalf("complete_url: %+v %v", m, err)
	}
	select {
	case n := <-completions:
		var p struct {
			ElicitationID string `json:"elicitationId"`
		}
		if json.Unmarshal(n.Params, &p) != nil || p.ElicitationID != "e-42" {
			t.Fatalf("GET stream got %s", n.Params)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the completion did not reach the GET stream on the other replica")
	}
}
