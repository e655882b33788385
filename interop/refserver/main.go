// Command refserver serves the four tools interop exercises (test_elicitation,
// test_sampling, test_tool_with_progress, test_simple_text) with the official
// Go SDK's own server, the same way the conformance example does with mcpgen.
// It is the control of the interop matrix: a client run that fails against
// mcpgen's server but passes here points at mcpgen, not at the client or the
// harness. The Go SDK v1.8.0 server answers a 2026-07-28 client over
// Streamable HTTP with "unsupported protocol version" and, over stdio, refuses
// to send elicitation/create or sampling/createMessage from a handler in that
// era (it wants the handler to return input requests itself), so the
// 2026-07-28 rows fail against this control by design; the 2025 rows pass.
//
//	INTEROP_SERVER_PKG=interop/refserver bash interop/run.sh
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:3000", "serve Streamable HTTP at http://`ADDR`/mcp")
	stdio := flag.Bool("stdio", false, "serve over stdin and stdout instead of HTTP")
	flag.Parse()

	s := newServer()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *stdio {
		if err := s.Run(ctx, &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	fmt.Fprintf(os.Stderr, "refserver: serving http://%s/mcp\n", *addr)
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}

type empty struct{}

type elicitationIn struct {
	Message string `json:"message"`
}

type samplingIn struct {
	Prompt string `json:"prompt"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "interop-refserver", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "test_simple_text", Description: "Returns a fixed text."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return text("This is a simple text response for testing."), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "test_tool_with_progress", Description: "Reports progress 0, 50 and 100 of 100."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				for _, p := range []float64{0, 50, 100} {
					if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: p, Total: 100}); err != nil {
						return nil, nil, err
					}
				}
			}
			return text("Progress reported: 0, 50 and 100 of 100"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "test_sampling", Description: "Asks the client's model."},
		func(ctx context.Context, req *mcp.CallToolRequest, in samplingIn) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
				MaxTokens: 100,
			})
			if err != nil {
				return nil, nil, err
			}
			reply := ""
			if tc, ok := res.Content.(*mcp.TextContent); ok {
				reply = tc.Text
			}
			return text("LLM response: " + reply), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "test_elicitation", Description: "Asks the user for a username and an email."},
		func(ctx context.Context, req *mcp.CallToolRequest, in elicitationIn) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
				Mode:    "form",
				Message: in.Message,
				RequestedSchema: map[string]any{
					"type": "object",
					"properties": map[string]any{
						"username": map[string]any{"type": "string"},
						"email":    map[string]any{"type": "string", "format": "email"},
					},
					"required": []string{"username", "email"},
				},
			})
			if err != nil {
				return nil, nil, err
			}
			b, _ := json.Marshal(res.Content)
			return text(fmt.Sprintf("User response: action=%s, content=%s", res.Action, b)), nil, nil
		})
	return s
}
