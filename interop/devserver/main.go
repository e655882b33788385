// Command devserver serves the four tools interop exercises with runtime.Tool
// written by hand, without the generator: the server the interop harness was
// developed against before the generated conformance example could build. CI
// uses the generated example; this stays for bisecting a failure between the
// runtime and the generated code.
//
//	INTEROP_SERVER_PKG=interop/devserver bash interop/run.sh
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpgen/mcpgen/runtime"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:3000", "serve Streamable HTTP at http://`ADDR`/mcp")
	stdio := flag.Bool("stdio", false, "serve over stdin and stdout instead of HTTP")
	flag.Parse()

	s := runtime.NewServer(runtime.Options{Name: "interop-devserver", Version: "1.0.0"})
	for _, t := range tools() {
		if err := s.AddTool(t); err != nil {
			log.Fatal(err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *stdio {
		err = s.ServeStdio(ctx, os.Stdin, os.Stdout)
	} else {
		fmt.Fprintf(os.Stderr, "devserver: serving http://%s/mcp\n", *addr)
		err = s.ListenAndServe(ctx, *addr)
	}
	if err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}

var userInfo = &runtime.Elicitation{
	Name:    "user_info",
	Mode:    "form",
	Message: "Please provide your information",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{` +
		`"username":{"type":"string","description":"Your username"},` +
		`"email":{"type":"string","format":"email","description":"Your email address"}},` +
		`"required":["username","email"]}`),
}

func def(name, description, properties string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if required == nil {
		req = []byte("[]")
	}
	return json.RawMessage(fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":{"type":"object","properties":{%s},"required":%s,"additionalProperties":false}}`,
		name, description, properties, req))
}

func tools() []runtime.Tool {
	return []runtime.Tool{
		{
			Name:       "test_simple_text",
			Definition: def("test_simple_text", "Returns a fixed text.", ""),
			Handler: func(_ context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
				return runtime.ContentResult(call, []runtime.Content{runtime.Text("This is a simple text response for testing.")}), nil
			},
		},
		{
			Name:       "test_tool_with_progress",
			Definition: def("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100.", ""),
			Handler: func(ctx context.Context, call *runtime.Call, _ json.RawMessage) (*runtime.ToolResult, error) {
				for _, p := range []float64{0, 50, 100} {
					if err := call.Progress(ctx, p, 100, ""); err != nil {
						return nil, err
					}
				}
				return runtime.ContentResult(call, []runtime.Content{runtime.Text("Progress reported: 0, 50 and 100 of 100")}), nil
			},
		},
		{
			Name:       "test_sampling",
			Definition: def("test_sampling", "Asks the client's model.", `"prompt":{"type":"string"}`, "prompt"),
			Handler: func(ctx context.Context, call *runtime.Call, args json.RawMessage) (*runtime.ToolResult, error) {
				var in struct {
					Prompt string `json:"prompt"`
				}
				if err := json.Unmarshal(args, &in); err != nil {
					return nil, err
				}
				res, err := call.CreateMessage(ctx, runtime.UserText(in.Prompt, 100))
				if err != nil {
					return nil, err
				}
				var reply struct {
					Text string `json:"text"`
				}
				_ = json.Unmarshal(res.Content, &reply)
				return runtime.ContentResult(call, []runtime.Content{runtime.Text("LLM response: " + reply.Text)}), nil
			},
		},
		{
			Name:         "test_elicitation",
			Definition:   def("test_elicitation", "Asks the user for a username and an email.", `"message":{"type":"string"}`, "message"),
			Elicitations: []*runtime.Elicitation{userInfo},
			Handler: func(ctx context.Context, call *runtime.Call, args json.RawMessage) (*runtime.ToolResult, error) {
				var in struct {
					Message string `json:"message"`
				}
				if err := json.Unmarshal(args, &in); err != nil {
					return nil, err
				}
				var answer struct {
					Username string `json:"username"`
					Email    string `json:"email"`
				}
				if err := call.Elicit(ctx, userInfo, in.Message, &answer); err != nil {
					return nil, err
				}
				b, _ := json.Marshal(answer)
				return runtime.ContentResult(call, []runtime.Content{runtime.Text("User response: action=accept, content=" + string(b))}), nil
			},
		},
	}
}
