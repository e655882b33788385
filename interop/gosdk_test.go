package interop

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGoSDK drives the server with the official Go SDK client over Streamable
// HTTP: with its default version negotiation (server/discover first, then
// initialize) and pinned to 2025-11-25, each with the standalone GET stream
// (the default) and without it (DisableStandaloneSSE, the SDK's own switch);
// and over stdio, negotiated and pinned.
func TestGoSDK(t *testing.T) {
	for _, tc := range []struct {
		name, transport, version string
		noGET                    bool
	}{
		{"http/negotiated/default", "http", "", false},
		{"http/negotiated/no-GET", "http", "", true},
		{"http/2025-11-25/default", "http", "2025-11-25", false},
		{"http/2025-11-25/no-GET", "http", "2025-11-25", true},
		{"http/2025-06-18/no-GET", "http", "2025-06-18", true},
		{"stdio/negotiated", "stdio", "", false},
		{"stdio/2025-11-25", "stdio", "2025-11-25", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &row{Client: "go-sdk " + moduleVersion("github.com/modelcontextprotocol/go-sdk"), Transport: tc.transport, Config: "default", Results: map[string]checkResult{}}
			if tc.noGET {
				r.Config = "no-GET"
				r.noGET = tc.transport == "http"
			}
			if tc.version != "" {
				r.Client += " (pinned " + tc.version + ")"
			}
			defer writeRow(t, r)

			obs := &observed{}
			client := mcp.NewClient(&mcp.Implementation{Name: "mcpgen-interop-go-sdk", Version: "1.0.0"}, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: obs.elicited(req.Params.Mode, req.Params.RequestedSchema)}, nil
				},
				CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					obs.sampled()
					return &mcp.CreateMessageResult{
						Role:       mcp.Role(samplingAnswer.Role),
						Content:    &mcp.TextContent{Text: samplingAnswer.Text},
						Model:      samplingAnswer.Model,
						StopReason: samplingAnswer.StopReason,
					}, nil
				},
				ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
					if req.Params != nil {
						obs.updates.deliver(req.Params.URI)
					}
				},
			})
			// DisableStandaloneSSE is the SDK's own switch; the tap only records.
			tap := newWireTap(false)
			var transport mcp.Transport = &mcp.StreamableClientTransport{
				Endpoint:             serverURL,
				HTTPClient:           &http.Client{Transport: tap},
				DisableStandaloneSSE: tc.noGET,
				MaxRetries:           -1,
			}
			if tc.transport == "stdio" {
				stdout, stdin := startStdio(t, tap)
				transport = &mcp.IOTransport{Reader: stdout, Writer: stdin}
			}
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: tc.version})
			cancel()
			if err != nil {
				r.Get = tap.getSummary()
				failAll(t, r, err)
				return
			}
			defer cs.Close()
			if res := cs.InitializeResult(); res != nil {
				r.Protocol = res.ProtocolVersion
			}
			runChecks(t, r, goSDKSession{cs}, obs, tap)
			r.Get = tap.getSummary()
			if tc.transport == "stdio" {
				r.Get = "n/a"
			}
		})
	}
}

type goSDKSession struct{ cs *mcp.ClientSession }

func (s goSDKSession) callTool(ctx context.Context, name string, args map[string]any, progressToken string) (*toolResult, error) {
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	if progressToken != "" {
		params.SetProgressToken(progressToken)
	}
	res, err := s.cs.CallTool(ctx, params)
	if err != nil {
		return nil, err
	}
	out := &toolResult{IsError: res.IsError}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out.Texts = append(out.Texts, tc.Text)
		}
	}
	return out, nil
}
