package impl

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func init() {
	register(Impl{Name: "gosdk", New: newGoSDK, Modern: true, Elicit: true, Sessions: true})
}

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

type confirmIn struct {
	Item string `json:"item,omitempty"`
}

// newGoSDK serves the tools with the official SDK's defaults (SSE responses,
// input and output validation on). The SDK serves 2026-07-28 only from a
// stateless handler, so requests without a session that name that version
// go there and everything else to the stateful one.
func newGoSDK() (http.Handler, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench-gosdk", Version: "0.1.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{
		Name:         "add",
		Description:  addDescription,
		InputSchema:  json.RawMessage(addInputSchema),
		OutputSchema: json.RawMessage(addOutputSchema),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
		return nil, addOut{Sum: in.A + in.B}, nil
	})
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "confirm",
		Description: confirmDescription,
		InputSchema: json.RawMessage(confirmInputSchema),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in confirmIn) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
			Mode:            "form",
			Message:         confirmMessage,
			RequestedSchema: json.RawMessage(confirmFormSchema),
		})
		if err != nil {
			return nil, nil, fmt.Errorf("elicitation: %w", err)
		}
		text := textDeclined
		if ok, _ := res.Content["confirm"].(bool); res.Action == "accept" && ok {
			text = textConfirmed
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	get := func(*http.Request) *mcp.Server { return srv }
	stateful := mcp.NewStreamableHTTPHandler(get, nil)
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") == "" && r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	}), nil
}
