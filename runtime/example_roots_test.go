package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
)

// Roots as a session's state: the server asks a client that declared roots
// for them once the session is initialized, and again when the client says
// they changed (notifications/roots/list_changed); Call.Roots reads the list
// the session holds, without asking. Options.RootsChanged hears of each
// change. (In 2026-07-28, which has no session, Call.Roots asks in the
// call's round instead: one more round trip per call that reads roots.)
func ExampleCall_Roots() {
	changed := make(chan runtime.RootsChange, 4)
	srv := runtime.NewServer(runtime.Options{
		RootsChanged: func(_ context.Context, ch runtime.RootsChange) { changed <- ch },
	})
	defer srv.Close()
	err := srv.AddTool(runtime.Tool{
		Name:       "list_allowed",
		Definition: json.RawMessage(`{"name":"list_allowed","inputSchema":{"type":"object"}}`),
		Handler: func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
			roots, err := call.Roots(ctx)
			if errors.Is(err, runtime.ErrNoRoots) {
				return runtime.ContentResult(call, []runtime.Content{runtime.Text("the client has no roots")}), nil
			} else if err != nil {
				return nil, err
			}
			var uris []string
			for _, r := range roots {
				uris = append(uris, r.URI)
			}
			text := fmt.Sprintf("%s %s: %s", call.ClientInfo().Name, call.ProtocolVersion(), strings.Join(uris, " "))
			return runtime.ContentResult(call, []runtime.Content{runtime.Text(text)}), nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	client := startStdio(srv)
	defer client.close()
	// answerRoots reads the server's roots/list and answers it with uri.
	answerRoots := func(uri string) {
		client.out.Scan()
		var q struct {
			ID     json.RawMessage
			Method string
		}
		_ = json.Unmarshal(client.out.Bytes(), &q)
		fmt.Println("server asks", q.Method)
		client.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"roots":[{"uri":%q}]}}`, q.ID, uri))
		ch := <-changed
		fmt.Println("roots changed:", ch.Roots[0].URI)
	}
	call := func(id int) {
		lines := client.request(id, "tools/call", `{"name":"list_allowed","arguments":{}}`)
		var res struct {
			Result struct{ Content []struct{ Text string } }
		}
		_ = json.Unmarshal([]byte(lines[len(lines)-1]), &res)
		fmt.Println(res.Result.Content[0].Text)
	}

	client.request(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"editor","version":"3.1"}}`)
	client.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	answerRoots("file:///home/ada/project")
	call(2)
	client.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	answerRoots("file:///home/ada/other")
	call(3)
	// Output:
	// server asks roots/list
	// roots changed: file:///home/ada/project
	// editor 2025-11-25: file:///home/ada/project
	// server asks roots/list
	// roots changed: file:///home/ada/other
	// editor 2025-11-25: file:///home/ada/other
}
