package interop

import (
	"context"
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestMCPGo drives the server with the mcp-go client over Streamable HTTP.
// mcp-go opens no standalone GET stream unless asked to
// (WithContinuousListening, which also rules out 2026-07-28), so its default
// is already the POST-only configuration; the GET configuration is the
// opt-in one. Over stdio it runs negotiated and pinned.
func TestMCPGo(t *testing.T) {
	for _, tc := range []struct {
		name, transport, version, config string
		listen                           bool
	}{
		{"http/negotiated/default", "http", "", "default (no GET)", false},
		{"http/2025-11-25/default", "http", "2025-11-25", "default (no GET)", false},
		{"http/2025-11-25/GET", "http", "2025-11-25", "GET (continuous listening)", true},
		{"stdio/negotiated", "stdio", "", "default", false},
		{"stdio/2025-11-25", "stdio", "2025-11-25", "default", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &row{Client: "mcp-go " + moduleVersion("github.com/mark3labs/mcp-go"), Transport: tc.transport, Config: tc.config, Results: map[string]checkResult{}}
			if tc.version != "" {
				r.Client += " (pinned " + tc.version + ")"
			}
			r.noGET = tc.transport == "http" && !tc.listen
			defer writeRow(t, r)

			tap := newWireTap(false)
			opts := []transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(&http.Client{Transport: tap})}
			if tc.listen {
				opts = append(opts, transport.WithContinuousListening())
			}
			var tr transport.Interface
			if tc.transport == "stdio" {
				stdout, stdin := startStdio(t, tap)
				tr = transport.NewIO(stdout, stdin, nil)
			} else {
				var err error
				if tr, err = transport.NewStreamableHTTP(serverURL, opts...); err != nil {
					failAll(t, r, err)
					return
				}
			}
			obs := &observed{}
			copts := []client.ClientOption{
				client.WithElicitationHandler(mcpGoElicitation{obs}),
				client.WithSamplingHandler(mcpGoSampling{obs}),
			}
			if tc.version != "" {
				copts = append(copts, client.WithProtocolVersion(tc.version))
			}
			c := client.NewClient(tr, copts...)
			mcpGoUpdates(c, obs)
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			if err := c.Start(ctx); err != nil {
				failAll(t, r, err)
				return
			}
			defer c.Close()
			init := mcp.InitializeRequest{}
			init.Params.ProtocolVersion = tc.version
			init.Params.ClientInfo = mcp.Implementation{Name: "mcpgen-interop-mcp-go", Version: "1.0.0"}
			res, err := c.Initialize(ctx, init)
			if err != nil {
				r.Get = tap.getSummary()
				failAll(t, r, err)
				return
			}
			r.Protocol = res.ProtocolVersion
			runChecks(t, r, mcpGoSession{c}, obs, tap)
			r.Get = tap.getSummary()
			if tc.transport == "stdio" {
				r.Get = "n/a"
			}
		})
	}
}

type mcpGoElicitation struct{ obs *observed }

func (h mcpGoElicitation) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	content := h.obs.elicited(req.Params.Mode, req.Params.RequestedSchema)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: content,
	}}, nil
}

type mcpGoSampling struct{ obs *observed }

func (h mcpGoSampling) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	h.obs.sampled()
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{
			Role:    mcp.Role(samplingAnswer.Role),
			Content: mcp.TextContent{Type: "text", Text: samplingAnswer.Text},
		},
		Model:      samplingAnswer.Model,
		StopReason: samplingAnswer.StopReason,
	}, nil
}

type mcpGoSession struct{ c *client.Client }

func (s mcpGoSession) callTool(ctx context.Context, name string, args map[string]any, progressToken string) (*toolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	if progressToken != "" {
		req.Params.Meta = &mcp.Meta{ProgressToken: progressToken}
	}
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		return nil, err
	}
	out := &toolResult{IsError: res.IsError}
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			out.Texts = append(out.Texts, tc.Text)
		}
	}
	return out, nil
}
