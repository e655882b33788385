package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// A 2026-07-28 task is bound to the principal that created it on every
// replica: another principal holding its ID gets, through any replica, the
// answer of an ID that never existed; its creator reaches it through all.
func TestTaskIsBoundToItsCreatorOnEveryReplica(t *testing.T) {
	rs := startReplicas(t, 3, redisSpec(t), testPrefix(t), "-auth")
	c := newCluster(rs)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	created, err := taskRPCAs(ctx, c, "alice;", rs[0].url, "tools/call", "ask_task", map[string]any{"name": "ask_task", "arguments": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := created["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call as alice: %v", created)
	}
	for _, r := range rs {
		_, theirs := taskRPCAs(ctx, c, "bob;", r.url, "tasks/get", id, map[string]any{"taskId": id})
		_, none := taskRPCAs(ctx, c, "bob;", r.url, "tasks/get", "0123", map[string]any{"taskId": "0123"})
		if theirs == nil || none == nil || strings.ReplaceAll(theirs.Error(), id, "0123") != none.Error() {
			t.Errorf("bob's tasks/get of alice's task on %s: %v, want what an unknown ID gets: %v", r.id, theirs, none)
		}
		for _, m := range []string{"tasks/cancel", "tasks/update"} {
			if _, err := taskRPCAs(ctx, c, "bob;", r.url, m, id, map[string]any{"taskId": id, "inputResponses": map[string]any{}}); err == nil || !strings.Contains(err.Error(), "Task not found") {
				t.Errorf("bob's %s of alice's task on %s: %v", m, r.id, err)
			}
		}
		got, err := taskRPCAs(ctx, c, "alice;", r.url, "tasks/get", id, map[string]any{"taskId": id})
		if err != nil || got["taskId"] != id {
			t.Errorf("alice's tasks/get on %s: %v %v", r.id, got, err)
		}
	}
	if _, err := taskRPCAs(ctx, c, "alice;", rs[2].url, "tasks/cancel", id, map[string]any{"taskId": id}); err != nil {
		t.Fatal(err)
	}
}

// 32 resources/subscribe made at once in one session, through three
// replicas, are all kept: the session's state changes atomically in Redis.
func TestConcurrentSubscribesLandOnEveryReplica(t *testing.T) {
	addr := redisSpec(t)
	prefix := testPrefix(t)
	rs := startReplicas(t, 3, addr, prefix)
	c := newCluster(rs)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, _, err := s.rpc(ctx, rs[i%3].url, "resources/subscribe", map[string]any{"uri": fmt.Sprintf("replica://doc/%d", i)})
			if err != nil || m.Error != nil {
				t.Errorf("subscribe %d: %v %+v", i, err, m)
			}
		}()
	}
	wg.Wait()
	raw, err := newClient(t, addr).Get(ctx, prefix+"s:{"+s.id+"}").Bytes()
	var st runtime.SessionState
	if err != nil || json.Unmarshal(raw, &st) != nil || len(st.Subscriptions) != 32 {
		t.Fatalf("32 concurrent subscriptions through 3 replicas kept %d: %v", len(st.Subscriptions), err)
	}
}
