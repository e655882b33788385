package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/examples/conformance/fixtures"
	"github.com/mcpgen/mcpgen/examples/conformance/fixtures/fixturestest"
	"github.com/mcpgen/mcpgen/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
	"go.uber.org/goleak"
)

// The test client (package mcptest, with the typed layer mcpgen generated
// for the fixtures) against this server, in both eras, over every way it
// connects: in-process HTTP and stdio, HTTP on loopback, and the stdio of
// a subprocess (this test binary, serving as the conformance command).

// serveStdioEnv makes the test binary serve the fixtures over stdio
// instead of running tests (TestMain), for the subprocess transport.
const serveStdioEnv = "CONFORMANCE_SERVE_STDIO"

func TestMain(m *testing.M) {
	if os.Getenv(serveStdioEnv) == "1" {
		if err := run([]string{"-stdio"}, os.Stdin, os.Stdout, os.Stderr); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

func newTestServer(t *testing.T) *runtime.Server {
	s, err := newServer(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// startLoopback serves a new server on 127.0.0.1 and returns its endpoint.
func startLoopback(t *testing.T) string {
	s := newTestServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serving: %v", err)
		}
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// transports runs body in both eras over each way the client connects;
// with subprocess, also over a subprocess's stdio (each era starts one,
// which takes a second under -race).
func transports(t *testing.T, subprocess bool, body func(t *testing.T, c *fixturestest.Client), opts ...mcptest.Option) {
	typed := func(t *testing.T, c *mcptest.Client) { body(t, fixturestest.New(c)) }
	t.Run("in-process HTTP", func(t *testing.T) { fixturestest.Run(t, newTestServer, body, opts...) })
	t.Run("in-process stdio", func(t *testing.T) {
		fixturestest.Run(t, newTestServer, body, append([]mcptest.Option{mcptest.OverStdio()}, opts...)...)
	})
	t.Run("loopback HTTP", func(t *testing.T) { mcptest.RunTarget(t, mcptest.URL(startLoopback(t)), typed, opts...) })
	if !subprocess {
		return
	}
	t.Run("subprocess stdio", func(t *testing.T) {
		if testing.Short() {
			t.Skip("starts processes")
		}
		command := mcptest.Command(func() *exec.Cmd {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), serveStdioEnv+"=1")
			return cmd
		})
		mcptest.RunTarget(t, command, typed, opts...)
	})
}

func TestClientContent(t *testing.T) {
	transports(t, false, func(t *testing.T, c *fixturestest.Client) {
		ctx := t.Context()
		text, err := c.TestSimpleText(ctx, fixtures.TestSimpleTextInput{})
		if err != nil || text.Text() != "This is a simple text response for testing." {
			t.Errorf("test_simple_text: %v %q", err, text.Text())
		}
		mixed, err := c.TestMultipleContentTypes(ctx, fixtures.TestMultipleContentTypesInput{})
		if err != nil || len(mixed) != 3 || mixed[1].Type != "image" || len(mixed[1].Data) == 0 ||
			mixed[2].Resource == nil || mixed[2].Resource.URI != "test://mixed-content-resource" {
			t.Errorf("test_multiple_content_types: %v %+v", err, mixed)
		}
		_, err = c.TestErrorHandling(ctx, fixtures.TestErrorHandlingInput{})
		var te *mcptest.ToolError
		if !errors.As(err, &te) || !strings.Contains(te.Content.Text(), "intentionally returns an error") {
			t.Errorf("test_error_handling: %v", err)
		}
		region, err := c.TestCustomHeader(ctx, fixtures.TestCustomHeaderInput{Region: "eu-west"})
		if err != nil || region.Text() != "Region: eu-west" {
			t.Errorf("test_custom_header (x-mcp-header): %v %q", err, region.Text())
		}
	})
}

func TestClientNotifications(t *testing.T) {
	transports(t, true, func(t *testing.T, c *fixturestest.Client) {
		ctx := t.Context()
		if _, err := c.TestToolWithProgress(ctx, fixtures.TestToolWithProgressInput{}); err != nil {
			t.Fatal(err)
		}
		var progress []float64
		for _, p := range c.Progress() {
			progress = append(progress, p.Progress)
		}
		if !reflect.DeepEqual(progress, []float64{0, 50, 100}) {
			t.Errorf("progress %v", progress)
		}
		if _, err := c.TestToolWithLogging(ctx, fixtures.TestToolWithLoggingInput{}); err != nil {
			t.Fatal(err)
		}
		if logs := c.Logs(); len(logs) != 3 || logs[0].Logger != logger || string(logs[2].Data) != `"Tool execution completed"` {
			t.Errorf("logs %+v", logs)
		}
		if err := c.Listen(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.Subscribe(ctx, watchedResource); err != nil {
			t.Fatal(err)
		}
		if _, err := c.TestTriggerToolChange(ctx, fixtures.TestTriggerToolChangeInput{}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.WaitFor(ctx, "notifications/tools/list_changed"); err != nil {
			t.Error(err)
		}
		if _, err := c.TestTriggerResourceUpdate(ctx, fixtures.TestTriggerResourceUpdateInput{}); err != nil {
			t.Fatal(err)
		}
		if n, err := c.WaitFor(ctx, "notifications/resources/updated"); err != nil || !strings.Contains(string(n.Params), watchedResource) {
			t.Errorf("resources/updated: %v %s", err, n.Params)
		}
	}, mcptest.LogLevel(runtime.LevelInfo))
}

func TestClientQuestions(t *testing.T) {
	transports(t, true, func(t *testing.T, c *fixturestest.Client) {
		ctx := t.Context()
		c.AnswerUserInfo(fixtures.UserInfo{Username: "ann", Email: "ann@example.com"})
		got, err := c.TestElicitation(ctx, fixtures.TestElicitationInput{Message: "Who are you?"})
		if err != nil || got.Text() != `User response: action=accept, content={"username":"ann","email":"ann@example.com"}` {
			t.Errorf("test_elicitation: %v %q", err, got.Text())
		}
		c.DeclineUserName()
		if got, err := c.TestInputRequiredResultElicitation(ctx, fixtures.TestInputRequiredResultElicitationInput{}); err != nil || got.Text() != "No name given (decline)." {
			t.Errorf("declined: %v %q", err, got.Text())
		}
		c.CancelUserName()
		if got, err := c.TestInputRequiredResultElicitation(ctx, fixtures.TestInputRequiredResultElicitationInput{}); err != nil || got.Text() != "No name given (cancel)." {
			t.Errorf("cancelled: %v %q", err, got.Text())
		}
		c.AnswerUserName(fixtures.UserName{Name: "Ann"})
		c.AnswerFavoriteColor(fixtures.FavoriteColor{Color: "blue"})
		if got, err := c.TestInputRequiredResultMultiRound(ctx, fixtures.TestInputRequiredResultMultiRoundInput{}); err != nil || got.Text() != "Multi-round complete for Ann who likes blue" {
			t.Errorf("multi-round: %v %q", err, got.Text())
		}
		c.OnSampling(func(_ context.Context, req *runtime.SamplingRequest) (*runtime.SamplingResult, error) {
			return &runtime.SamplingResult{Role: "assistant", Model: "test", Content: json.RawMessage(`{"type":"text","text":"Hi!"}`)}, nil
		})
		c.SetRoots(runtime.Root{URI: "file:///work"})
		out, err := c.TestInputRequiredResultMultipleInputs(ctx, fixtures.TestInputRequiredResultMultipleInputsInput{})
		if want := (fixtures.TestInputRequiredResultMultipleInputsOutput{Name: "Ann", Greeting: "Hi!", Roots: 1}); err != nil || out != want {
			t.Errorf("multiple inputs: %v %+v, want %+v", err, out, want)
		}
		if got, err := c.TestSampling(ctx, fixtures.TestSamplingInput{Prompt: "Hello?"}); err != nil || got.Text() != "LLM response: Hi!" {
			t.Errorf("test_sampling: %v %q", err, got.Text())
		}
		c.AnswerConfirm(fixtures.Confirm{Ok: true})
		if got, err := c.TestInputRequiredResultRequestState(ctx, fixtures.TestInputRequiredResultRequestStateInput{}); err != nil || !strings.HasPrefix(got.Text(), "state-ok") {
			t.Errorf("request state: %v %q", err, got.Text())
		}
	})
}

func TestClientPromptsAndResources(t *testing.T) {
	transports(t, false, func(t *testing.T, c *fixturestest.Client) {
		ctx := t.Context()
		p, err := c.TestPromptWithArgumentsPrompt(ctx, fixtures.TestPromptWithArgumentsPromptArgs{Arg1: "hello", Arg2: "world"})
		if err != nil || p.Text() != "Prompt with arguments: arg1='hello', arg2='world'" {
			t.Errorf("prompt: %v %+v", err, p)
		}
		done, err := c.CompleteTestPromptWithArgumentsArg1(ctx, "", nil)
		if err != nil || len(done.Values) == 0 {
			t.Errorf("completion: %v %+v", err, done)
		}
		r, err := c.ReadStaticText(ctx)
		if err != nil || r.Text() != "This is the content of the static text resource." {
			t.Errorf("static text: %v %+v", err, r)
		}
		r, err = c.ReadTemplate(ctx, fixtures.TemplateParams{ID: "123"})
		if err != nil || !strings.Contains(r.Text(), "123") {
			t.Errorf("template: %v %+v", err, r)
		}
	})
}
