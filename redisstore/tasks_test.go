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

// taskRPC posts one 2026-07-28 request that declares the tasks extension to
// url and returns its result object.
func taskRPC(ctx context.Context, c *cluster, url, method, name string, params map[string]any) (map[string]any, error) {
	return taskRPCAs(ctx, c, "", url, method, name, params)
}

// taskRPCAs is taskRPC with a bearer token ("" for none).
func taskRPCAs(ctx context.Context, c *cluster, token, url, method, name string, params map[string]any) (map[string]any, error) {
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientInfo":      map[string]any{"name": "replica-test", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{},
			"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
	}
	body := map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(string(b)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out *msg
	if err := readMessages(resp, func(m *msg) (bool, error) {
		if m.Method == "" {
			out = m
			return true, nil
		}
		return false, nil
	}); err != nil {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("%s: no response", method)
	}
	if out.Error != nil {
		return nil, fmt.Errorf("%s: JSON-RPC error %d: %s", method, out.Error.Code, out.Error.Message)
	}
	var res map[string]any
	return res, json.Unmarshal(out.Result, &res)
}

// awaitTask polls tasks/get through url until the task's status is one of
// want, for at most 15s.
func awaitTask(ctx context.Context, t *testing.T, c *cluster, url, id string, want ...string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got, err := taskRPC(ctx, c, url, "tasks/get", id, map[string]any{"taskId": id})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if got["status"] == w {
				return got
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is %v, want %v", id, got["status"], want)
		}
		time.Sleep(20 * time.Millisecond) // polling, as a client does
	}
}

// A task created on replica A is polled and answered on B and its result
// read on C; the handler runs on A throughout and resumes where it waited.
func TestTaskCrossesThreeReplicas(t *testing.T) {
	rs := startReplicas(t, 3, redisSpec(t), testPrefix(t))
	c := newCluster(rs)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for n := range 5 {
		created, err := taskRPC(ctx, c, rs[0].url, "tools/call", "ask_task", map[string]any{"name": "ask_task", "arguments": map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		id, _ := created["taskId"].(string)
		if created["resultType"] != "task" || id == "" {
			t.Fatalf("tools/call on A: %v", created)
		}
		waiting := awaitTask(ctx, t, c, rs[1].url, id, "input_required")
		reqs, _ := waiting["inputRequests"].(map[string]any)
		if len(reqs) != 1 {
			t.Fatalf("inputRequests on B: %v", waiting)
		}
		for key := range reqs {
			if _, err := taskRPC(ctx, c, rs[1].url, "tasks/update", id, map[string]any{"taskId": id,
				"inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"value": answerValue(n)}}}}); err != nil {
				t.Fatal(err)
			}
		}
		done := awaitTask(ctx, t, c, rs[2].url, id, "completed", "failed", "cancelled")
		text := fmt.Sprint(done["result"])
		if done["status"] != "completed" || !strings.Contains(text, fmt.Sprintf(`"value":%d`, answerValue(n))) || !strings.Contains(text, rs[0].id) {
			t.Fatalf("task on C: %v", done)
		}
	}
	// Cancelled through C, a task running on A stops there.
	created, err := taskRPC(ctx, c, rs[0].url, "tools/call", "hang_task", map[string]any{"name": "hang_task", "arguments": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	id := created["taskId"].(string)
	if _, err := taskRPC(ctx, c, rs[2].url, "tasks/cancel", id, map[string]any{"taskId": id}); err != nil {
		t.Fatal(err)
	}
	if got := awaitTask(ctx, t, c, rs[1].url, id, "cancelled", "failed", "completed"); got["status"] != "cancelled" {
		t.Fatalf("cancelled task: %v", got)
	}
}

// A task whose replica dies is reported failed, saying so, once the lease
// that replica renewed lapses; it is neither lost nor working forever.
func TestTaskOfKilledReplicaFails(t *testing.T) {
	rs := startReplicas(t, 3, redisSpec(t), testPrefix(t), "-task-lease", "900ms")
	c := newCluster(rs)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	created, err := taskRPC(ctx, c, rs[0].url, "tools/call", "hang_task", map[string]any{"name": "hang_task", "arguments": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	id := created["taskId"].(string)
	// It keeps working past its first lease while A renews it.
	time.Sleep(1500 * time.Millisecond) // longer than one lease, to see it renewed
	if got := awaitTask(ctx, t, c, rs[1].url, id, "working", "failed"); got["status"] != "working" {
		t.Fatalf("a task whose replica lives: %v", got)
	}
	rs[0].kill()
	c.markDead(rs[0].url)
	got := awaitTask(ctx, t, c, rs[2].url, id, "failed", "completed", "cancelled")
	msg := fmt.Sprint(got["statusMessage"], got["error"])
	if got["status"] != "failed" || !strings.Contains(msg, rs[0].id) || !strings.Contains(msg, "stopped") {
		t.Fatalf("task of the killed replica: %v", got)
	}
}

// 2025-11-25: a session's task created on A is read on B, whose tasks/result
// asks the task's question on its own stream; the answer is POSTed to C,
// and the handler on A resumes; tasks/list on C finds the task.
func TestLegacyTaskCrossesThreeReplicas(t *testing.T) {
	rs := startReplicas(t, 3, redisSpec(t), testPrefix(t))
	c := newCluster(rs)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := s.rpc(ctx, rs[0].url, "tools/call", map[string]any{"name": "ask_task", "arguments": map[string]any{}, "task": map[string]any{"ttl": 60000}})
	if err != nil || m.Error != nil {
		t.Fatalf("tools/call on A: %v %+v", err, m)
	}
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		} `json:"task"`
	}
	if json.Unmarshal(m.Result, &created) != nil || created.Task.TaskID == "" {
		t.Fatalf("tools/call on A: %s", m.Result)
	}
	id := created.Task.TaskID
	resp, err := s.do(ctx, http.MethodPost, rs[1].url, map[string]any{"jsonrpc": "2.0", "id": 99, "method": "tasks/result", "params": map[string]any{"taskId": id}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var final *msg
	err = readMessages(resp, func(m *msg) (bool, error) {
		switch {
		case m.Method == "elicitation/create":
			if !strings.Contains(string(m.Params), `"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}`) {
				return true, fmt.Errorf("the question lacks the related-task _meta: %s", m.Params)
			}
			ans := map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"action": "accept", "content": map[string]any{"value": answerValue(7)}}}
			return false, s.post(ctx, rs[2].url, ans, http.StatusAccepted)
		case m.Method == "" && string(m.ID) == "99":
			final = m
			return true, nil
		}
		return false, nil
	})
	if err != nil || final == nil || final.Error != nil {
		t.Fatalf("tasks/result on B: %v %+v", err, final)
	}
	if text := string(final.Result); !strings.Contains(text, fmt.Sprintf(`\"value\":%d`, answerValue(7))) || !strings.Contains(text, rs[0].id) || !strings.Contains(text, "related-task") {
		t.Fatalf("tasks/result on B: %s", final.Result)
	}
	list, _, err := s.rpc(ctx, rs[2].url, "tasks/list", map[string]any{})
	if err != nil || list.Error != nil || !strings.Contains(string(list.Result), id) || !strings.Contains(string(list.Result), `"completed"`) {
		t.Fatalf("tasks/list on C: %v %+v", err, list)
	}
}
