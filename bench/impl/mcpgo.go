package impl

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func init() {
	register(Impl{Name: "mcpgo", New: newMCPGo, Modern: true, Elicit: true, Sessions: true})
}

// newMCPGo serves the tools with mcp-go's Streamable HTTP server, input
// validation switched on so every implementation validates arguments, and
// transport logging discarded (it logs every elicitation answer at Info).
func newMCPGo() (http.Handler, error) {
	srv := server.NewMCPServer("bench-mcpgo", "0.1.0",
		server.WithToolCapabilities(false),
		server.WithElicitation(),
		server.WithInputSchemaValidation(),
	)
	add := mcp.NewToolWithRawSchema("add", addDescription, json.RawMessage(addInputSchema))
	add.RawOutputSchema = json.RawMessage(addOutputSchema)
	srv.AddTool(add, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in addIn
		if err := req.BindArguments(&in); err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		out := addOut{Sum: in.A + in.B}
		text, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultStructured(out, string(text)), nil
	})
	confirm := mcp.NewToolWithRawSchema("confirm", confirmDescription, json.RawMessage(confirmInputSchema))
	schema := json.RawMessage(confirmFormSchema)
	srv.AddTool(confirm, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := srv.RequestElicitation(ctx, mcp.ElicitationRequest{
			Params: mcp.ElicitationParams{Mode: mcp.ElicitationModeForm, Message: confirmMessage, RequestedSchema: schema},
		})
		if err != nil {
			return mcp.NewToolResultError(fmt.Sprintf("elicitation: %v", err)), nil
		}
		text := textDeclined
		if content, _ := res.Content.(map[string]any); res.Action == mcp.ElicitationResponseActionAccept && content["confirm"] == true {
			text = textConfirmed
		}
		return mcp.NewToolResultText(text), nil
	})
	// Its transport logs every delivered answer at Info by default; every
	// implementation here runs with logging discarded.
	return server.NewStreamableHTTPServer(srv, server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))), nil
}
