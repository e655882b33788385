package main

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/mcpgen/mcpgen/runtime"
)

// The roots tools of the replica: "roots" reads the session's roots
// (Call.Roots), which any replica may have fetched; "roots_changes" counts
// the changes this replica fetched for the caller's session
// (Options.RootsChanged), so that a test knows when a fetch has landed.

// rootsChanges counts Options.RootsChanged calls by session.
type rootsChanges struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *rootsChanges) hook(_ context.Context, ch runtime.RootsChange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = map[string]int{}
	}
	r.n[ch.SessionID]++
}

func (r *rootsChanges) count(session string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[session]
}

// RootsResult is what the "roots" tool answers.
type RootsResult struct {
	Roots   []string `json:"roots"`
	Replica string   `json:"replica"`
	Session string   `json:"session"`
	Client  string   `json:"client"`
}

func addRootsTools(srv *runtime.Server, changes *rootsChanges, replicaID string) error {
	err := srv.AddTool(runtime.Tool{
		Name:       "roots",
		Definition: json.RawMessage(`{"name":"roots","description":"Lists the session's roots.","inputSchema":{"type":"object"}}`),
		Handler: func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
			roots, err := call.Roots(ctx)
			if err != nil {
				return nil, err
			}
			res := RootsResult{Roots: []string{}, Replica: replicaID, Session: call.SessionID(), Client: call.ClientInfo().Name}
			for _, r := range roots {
				res.Roots = append(res.Roots, r.URI)
			}
			out, _ := json.Marshal(res)
			return runtime.ContentResult(call, []runtime.Content{runtime.Text(string(out))}), nil
		},
	})
	if err != nil {
		return err
	}
	return srv.AddTool(runtime.Tool{
		Name:       "roots_changes",
		Definition: json.RawMessage(`{"name":"roots_changes","description":"Counts the roots changes this replica fetched for the session.","inputSchema":{"type":"object"}}`),
		Handler: func(_ context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
			return runtime.ContentResult(call, []runtime.Content{runtime.Text(strconv.Itoa(changes.count(call.SessionID())))}), nil
		},
	})
}
