package interop

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var signIn = &runtime.Elicitation{Name: "sign_in", Mode: "url", Message: "Sign in to Example Co."}

// urlApp is a server whose tool "connect" needs a third-party sign-in: it
// ends the call with RequireURL until the out-of-band step finished, and the
// out-of-band side (here the test) completes it with CompleteURLElicitation.
type urlApp struct {
	srv  *runtime.Server
	mu   sync.Mutex
	done bool
	refs chan runtime.URLElicitationRef
}

func newURLApp(t *testing.T) (*urlApp, string) {
	a := &urlApp{srv: runtime.NewServer(runtime.Options{Name: "url-app", Version: "1"}), refs: make(chan runtime.URLElicitationRef, 4)}
	err := a.srv.AddTool(runtime.Tool{
		Name:         "connect",
		Definition:   json.RawMessage(`{"name":"connect","description":"Connect the account","inputSchema":{"type":"object"}}`),
		Elicitations: []*runtime.Elicitation{signIn},
		Handler: func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
			if a.signedIn() {
				return runtime.ContentResult(call, []runtime.Content{runtime.Text("connected")}), nil
			}
			u, err := call.NewURLElicitation(signIn)
			if err != nil {
				return nil, err
			}
			if ref, ok := u.Ref(); ok {
				a.refs <- ref
			}
			return nil, call.RequireURL(runtime.URLNeed{Elicitation: u, URL: "https://auth.example.com/connect?state=" + u.ID()})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(a.srv)
	t.Cleanup(func() { ts.Close(); a.srv.Close() })
	return a, ts.URL
}

func (a *urlApp) signedIn() bool { a.mu.Lock(); defer a.mu.Unlock(); return a.done }
func (a *urlApp) signIn()        { a.mu.Lock(); defer a.mu.Unlock(); a.done = true }

// TestGoSDKURLElicitation: the official Go SDK client completes a URL-mode
// flow against the runtime. Pinned to 2025-11-25, the call fails with
// -32042 listing the URL elicitation with its elicitationId; once the user
// finished, the server's notifications/elicitation/complete reaches the
// client's ElicitationCompleteHandler with that ID, and the retried call
// succeeds. Negotiated (2026-07-28), the same tool asks for the URL through
// an input_required round that the SDK fulfils through its
// ElicitationHandler (URL mode, no elicitationId) and retries by itself.
func TestGoSDKURLElicitation(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		name := version
		if name == "" {
			name = "negotiated"
		}
		t.Run(name, func(t *testing.T) {
			app, url := newURLApp(t)
			completed := make(chan string, 4)
			var asked []*mcp.ElicitParams
			var mu sync.Mutex
			client := mcp.NewClient(&mcp.Implementation{Name: "mcpgen-interop-url", Version: "1.0.0"}, &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					asked = append(asked, req.Params)
					mu.Unlock()
					app.signIn() // the user opens the URL and finishes there
					return &mcp.ElicitResult{Action: "accept"}, nil
				},
				ElicitationCompleteHandler: func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
					completed <- req.Params.ElicitationID
				},
			})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			want := version
			if want == "" {
				want = "2026-07-28"
			}
			if r := cs.InitializeResult(); r == nil || r.ProtocolVersion != want {
				t.Fatalf("negotiated %+v, want %s", r, want)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "connect", Arguments: map[string]any{}})
			if version == "" {
				// 2026-07-28: one input_required round, fulfilled and retried by the SDK.
				if err != nil || res.IsError || textOf(res) != "connected" {
					t.Fatalf("CallTool = %+v, %v", res, err)
				}
				mu.Lock()
				defer mu.Unlock()
				if len(asked) != 1 || asked[0].Mode != "url" || asked[0].ElicitationID != "" || !strings.HasPrefix(asked[0].URL, "https://auth.example.com/connect") {
					t.Fatalf("elicitations asked: %+v", asked)
				}
				return
			}
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) || werr.Code != mcp.CodeURLElicitationRequired {
				t.Fatalf("CallTool = %+v, %v; want -32042", res, err)
			}
			var data struct {
				Elicitations []mcp.ElicitParams `json:"elicitations"`
			}
			if err := json.Unmarshal(werr.Data, &data); err != nil || len(data.Elicitations) != 1 {
				t.Fatalf("data %s: %v", werr.Data, err)
			}
			el := data.Elicitations[0]
			ref := <-app.refs
			if el.Mode != "url" || el.ElicitationID != ref.ElicitationID || el.URL != "https://auth.example.com/connect?state="+ref.ElicitationID {
				t.Fatalf("elicitation %+v, ref %+v", el, ref)
			}
			app.signIn() // the user finished out of band
			if err := app.srv.CompleteURLElicitation(ctx, ref); err != nil {
				t.Fatal(err)
			}
			select {
			case id := <-completed:
				if id != ref.ElicitationID {
					t.Fatalf("completion for %q, want %q", id, ref.ElicitationID)
				}
			case <-ctx.Done():
				t.Fatal("notifications/elicitation/complete never reached the client")
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "connect", Arguments: map[string]any{}})
			if err != nil || textOf(res) != "connected" {
				t.Fatalf("retry = %+v, %v", res, err)
			}
		})
	}
}

func textOf(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}
