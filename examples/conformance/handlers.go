package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/examples/conformance/fixtures"
	"github.com/mcpgen/mcpgen/runtime"
)

// handler implements every conformance fixture against the generated
// interface. It keeps no per-call state of its own: what a 2026-07-28 call
// must remember between rounds travels in the call's sealed state.
type handler struct {
	fixtures.UnimplementedHandler

	png []byte
	wav []byte
}

var _ fixtures.Handler = (*handler)(nil)

func newHandler() *handler {
	return &handler{png: redPixelPNG(), wav: silentWAV()}
}

// logger is the logger name of every notifications/message the fixtures send.
const logger = "mcpgen-conformance"

// --- content fixtures (tools-call-*) -------------------------------------

func (h *handler) TestSimpleText(ctx context.Context, call fixtures.TestSimpleTextCall, in fixtures.TestSimpleTextInput) ([]runtime.Content, error) {
	return []runtime.Content{runtime.Text("This is a simple text response for testing.")}, nil
}

func (h *handler) TestImageContent(ctx context.Context, call fixtures.TestImageContentCall, in fixtures.TestImageContentInput) ([]runtime.Content, error) {
	return []runtime.Content{&runtime.ImageContent{Data: h.png, MIMEType: "image/png"}}, nil
}

func (h *handler) TestAudioContent(ctx context.Context, call fixtures.TestAudioContentCall, in fixtures.TestAudioContentInput) ([]runtime.Content, error) {
	return []runtime.Content{&runtime.AudioContent{Data: h.wav, MIMEType: "audio/wav"}}, nil
}

func (h *handler) TestEmbeddedResource(ctx context.Context, call fixtures.TestEmbeddedResourceCall, in fixtures.TestEmbeddedResourceInput) ([]runtime.Content, error) {
	return []runtime.Content{&runtime.EmbeddedResource{Resource: runtime.ResourceContents{
		URI:      "test://embedded-resource",
		MIMEType: "text/plain",
		Text:     "This is an embedded resource content.",
	}}}, nil
}

func (h *handler) TestMultipleContentTypes(ctx context.Context, call fixtures.TestMultipleContentTypesCall, in fixtures.TestMultipleContentTypesInput) ([]runtime.Content, error) {
	return []runtime.Content{
		runtime.Text("Multiple content types test:"),
		&runtime.ImageContent{Data: h.png, MIMEType: "image/png"},
		&runtime.EmbeddedResource{Resource: runtime.ResourceContents{
			URI:      "test://mixed-content-resource",
			MIMEType: "application/json",
			Text:     `{"test":"data","value":123}`,
		}},
	}, nil
}

func (h *handler) TestErrorHandling(ctx context.Context, call fixtures.TestErrorHandlingCall, in fixtures.TestErrorHandlingInput) ([]runtime.Content, error) {
	return nil, errors.New("This tool intentionally returns an error for testing")
}

func (h *handler) JSONSchema202012Tool(ctx context.Context, call fixtures.JSONSchema202012ToolCall, in fixtures.JSONSchema202012ToolInput) ([]runtime.Content, error) {
	// The suite only lists this tool (its definition must keep every 2020-12
	// keyword); calling it echoes the typed input, which the runtime has
	// already validated against the whole schema (allOf, if/then/else).
	return []runtime.Content{runtime.Text("JSON Schema 2020-12 tool called with: " + jsonText(in))}, nil
}

func (h *handler) TestCustomHeader(ctx context.Context, call fixtures.TestCustomHeaderCall, in fixtures.TestCustomHeaderInput) ([]runtime.Content, error) {
	// By the time this runs, the runtime has checked that a 2026-07-28
	// request's Mcp-Param-Region header equals the region argument.
	return []runtime.Content{runtime.Text("Region: " + in.Region)}, nil
}

// --- notifications while a call runs -------------------------------------

// pause waits d or until the call ends. The suite asks for ~50 ms between
// notifications so that a client sees them arrive one by one.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *handler) TestToolWithLogging(ctx context.Context, call fixtures.TestToolWithLoggingCall, in fixtures.TestToolWithLoggingInput) ([]runtime.Content, error) {
	steps := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}
	for i, msg := range steps {
		if i > 0 {
			if err := pause(ctx, 50*time.Millisecond); err != nil {
				return nil, err
			}
		}
		if err := call.Log(ctx, runtime.LevelInfo, logger, msg); err != nil {
			return nil, err
		}
	}
	return []runtime.Content{runtime.Text("Tool with logging executed successfully")}, nil
}

func (h *handler) TestToolWithProgress(ctx context.Context, call fixtures.TestToolWithProgressCall, in fixtures.TestToolWithProgressInput) ([]runtime.Content, error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, 50*time.Millisecond); err != nil {
				return nil, err
			}
		}
		if err := call.Progress(ctx, p, 100, fmt.Sprintf("Completed step %v of 100", p)); err != nil {
			return nil, err
		}
	}
	return []runtime.Content{runtime.Text("Progress reported: 0, 50 and 100 of 100")}, nil
}

func (h *handler) TestReconnection(ctx context.Context, call fixtures.TestReconnectionCall, in fixtures.TestReconnectionInput) ([]runtime.Content, error) {
	if err := call.Progress(ctx, 0, 1, "waiting"); err != nil {
		return nil, err
	}
	if err := pause(ctx, 100*time.Millisecond); err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.")}, nil
}

func (h *handler) TestLoggingTool(ctx context.Context, call fixtures.TestLoggingToolCall, in fixtures.TestLoggingToolInput) ([]runtime.Content, error) {
	// The runtime sends it only when the client asked for logs (logging/setLevel,
	// or a 2026-07-28 request's _meta logLevel).
	if err := call.Log(ctx, runtime.LevelInfo, logger, "Diagnostic trace logging activated"); err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text("Logging evaluated")}, nil
}

func (h *handler) TestTriggerToolChange(ctx context.Context, call fixtures.TestTriggerToolChangeCall, in fixtures.TestTriggerToolChangeInput) ([]runtime.Content, error) {
	call.NotifyToolListChanged()
	return []runtime.Content{runtime.Text("Mutation triggered")}, nil
}

// --- sampling and elicitation (live in sessions, multi round-trip in 2026) ----

// samplingText is the text of a sampling answer, whatever its content shape
// (one block or, since 2025-11-25, an array of blocks).
func samplingText(res *runtime.SamplingResult) string {
	var one struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(res.Content, &one) == nil && one.Type == "text" {
		return one.Text
	}
	var many []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(res.Content, &many) == nil {
		var parts []string
		for _, b := range many {
			if b.Type == "text" {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return "(no text)"
}

// outcome describes a declined or cancelled form for the result text, and
// reports whether err was one of those two answers.
func outcome(err error) (string, bool) {
	switch {
	case errors.Is(err, runtime.ErrDeclined):
		return "decline", true
	case errors.Is(err, runtime.ErrCancelled):
		return "cancel", true
	}
	return "", false
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

func (h *handler) TestSampling(ctx context.Context, call fixtures.TestSamplingCall, in fixtures.TestSamplingInput) ([]runtime.Content, error) {
	res, err := call.CreateMessage(ctx, runtime.UserText(in.Prompt, 100))
	if err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text("LLM response: " + samplingText(res))}, nil
}

func (h *handler) TestElicitation(ctx context.Context, call fixtures.TestElicitationCall, in fixtures.TestElicitationInput) ([]runtime.Content, error) {
	info, err := call.ElicitUserInfo(ctx, in.Message)
	if action, ok := outcome(err); ok {
		return []runtime.Content{runtime.Text("User response: action=" + action + ", content={}")}, nil
	}
	if err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text("User response: action=accept, content=" + jsonText(info))}, nil
}

func (h *handler) TestElicitationSep1034Defaults(ctx context.Context, call fixtures.TestElicitationSep1034DefaultsCall, in fixtures.TestElicitationSep1034DefaultsInput) ([]runtime.Content, error) {
	answer, err := call.ElicitSep1034Defaults(ctx, "")
	if action, ok := outcome(err); ok {
		return []runtime.Content{runtime.Text("Elicitation completed: action=" + action + ", content={}")}, nil
	}
	if err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text("Elicitation completed: action=accept, content=" + jsonText(answer))}, nil
}

func (h *handler) TestElicitationSep1330Enums(ctx context.Context, call fixtures.TestElicitationSep1330EnumsCall, in fixtures.TestElicitationSep1330EnumsInput) ([]runtime.Content, error) {
	answer, err := call.ElicitSep1330Enums(ctx, "")
	if action, ok := outcome(err); ok {
		return []runtime.Content{runtime.Text("Elicitation completed: action=" + action + ", content={}")}, nil
	}
	if err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text("Elicitation completed: action=accept, content=" + jsonText(answer))}, nil
}

func (h *handler) TestMissingCapability(ctx context.Context, call fixtures.TestMissingCapabilityCall, in fixtures.TestMissingCapabilityInput) ([]runtime.Content, error) {
	// Without the sampling capability CreateMessage fails with
	// runtime.ErrCapabilityMissing, which the runtime answers with -32021
	// (2026-07-28) instead of running the tool on.
	res, err := call.CreateMessage(ctx, runtime.UserText("Say hello.", 20))
	if err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text("Success: " + samplingText(res))}, nil
}

func (h *handler) TestStreamingElicitation(ctx context.Context, call fixtures.TestStreamingElicitationCall, in fixtures.TestStreamingElicitationInput) ([]runtime.Content, error) {
	if err := call.Progress(ctx, 50, 100, "halfway"); err != nil {
		return nil, err
	}
	// In 2026-07-28 this question leaves as an input_required result, never as
	// a request on the response stream.
	answer, err := call.ElicitConfirm(ctx, "Carry on streaming?")
	if action, ok := outcome(err); ok {
		return []runtime.Content{runtime.Text("Streaming stopped: " + action)}, nil
	}
	if err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text(fmt.Sprintf("Streaming complete (ok=%v)", answer.Ok))}, nil
}

// --- multi round-trip fixtures (input-required-result-*) -----------------

func (h *handler) TestInputRequiredResultElicitation(ctx context.Context, call fixtures.TestInputRequiredResultElicitationCall, in fixtures.TestInputRequiredResultElicitationInput) ([]runtime.Content, error) {
	who, err := call.ElicitUserName(ctx, "")
	if action, ok := outcome(err); ok {
		return []runtime.Content{runtime.Text("No name given (" + action + ").")}, nil
	}
	if err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text("Hello, " + who.Name + "!")}, nil
}

func (h *handler) TestInputRequiredResultSampling(ctx context.Context, call fixtures.TestInputRequiredResultSamplingCall, in fixtures.TestInputRequiredResultSamplingInput) ([]runtime.Content, error) {
	res, err := call.CreateMessage(ctx, runtime.UserText("What is the capital of France?", 100))
	if err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text("Sampling result: " + samplingText(res))}, nil
}

func (h *handler) TestInputRequiredResultListRoots(ctx context.Context, call fixtures.TestInputRequiredResultListRootsCall, in fixtures.TestInputRequiredResultListRootsInput) ([]runtime.Content, error) {
	roots, err := call.ListRoots(ctx)
	if err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text(fmt.Sprintf("Found %d root(s)", len(roots)))}, nil
}

// requestStateKind marks the state this fixture saves in its first round; the
// suite checks that a retry carrying the echoed state completes.
const requestStateKind = "request-state"

func (h *handler) TestInputRequiredResultRequestState(ctx context.Context, call fixtures.TestInputRequiredResultRequestStateCall, in fixtures.TestInputRequiredResultRequestStateInput) ([]runtime.Content, error) {
	first := call.State() == nil
	if first {
		call.SetState([]byte(requestStateKind))
	}
	answer, err := call.ElicitConfirm(ctx, "")
	if err != nil {
		return nil, err
	}
	if string(call.State()) != requestStateKind {
		return nil, fmt.Errorf("requestState lost its content: %q", call.State())
	}
	return []runtime.Content{runtime.Text(fmt.Sprintf("state-ok: requestState validated (ok=%v)", answer.Ok))}, nil
}

func (h *handler) TestInputRequiredResultTamperedState(ctx context.Context, call fixtures.TestInputRequiredResultTamperedStateCall, in fixtures.TestInputRequiredResultTamperedStateInput) ([]runtime.Content, error) {
	// The state is sealed by the runtime: a client that alters it gets a
	// JSON-RPC error before this handler runs again.
	call.SetState([]byte("tamper-test"))
	answer, err := call.ElicitConfirm(ctx, "")
	if err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text(fmt.Sprintf("integrity-ok: state verified (ok=%v)", answer.Ok))}, nil
}

func (h *handler) TestInputRequiredResultMultiRound(ctx context.Context, call fixtures.TestInputRequiredResultMultiRoundCall, in fixtures.TestInputRequiredResultMultiRoundInput) ([]runtime.Content, error) {
	who, err := call.ElicitUserName(ctx, "Step 1: What is your name?")
	if err != nil {
		return nil, err
	}
	color, err := call.ElicitFavoriteColor(ctx, "Step 2: What is your favorite color?")
	if err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text(fmt.Sprintf("Multi-round complete for %s who likes %s", who.Name, color.Color))}, nil
}

// together runs the questions of one round at the same time and returns their
// errors in order. In a session each is a live request on the call's stream;
// in 2026-07-28 all of them leave in the same input_required result.
func together(questions ...func() error) []error {
	errs := make([]error, len(questions))
	var wg sync.WaitGroup
	for i, q := range questions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = q()
		}()
	}
	wg.Wait()
	return errs
}

// firstError prefers ErrInputRequired, so that a round still missing answers
// ends as input_required rather than as whichever other error came first.
func firstError(errs []error) error {
	for _, err := range errs {
		if errors.Is(err, runtime.ErrInputRequired) {
			return err
		}
	}
	return errors.Join(errs...)
}

func (h *handler) TestInputRequiredResultMultipleInputs(ctx context.Context, call fixtures.TestInputRequiredResultMultipleInputsCall, in fixtures.TestInputRequiredResultMultipleInputsInput) (fixtures.TestInputRequiredResultMultipleInputsOutput, error) {
	var (
		who      fixtures.UserName
		greeting *runtime.SamplingResult
		roots    []runtime.Root
	)
	errs := together(
		func() (err error) { who, err = call.ElicitUserName(ctx, ""); return err },
		func() (err error) {
			greeting, err = call.CreateMessage(ctx, runtime.UserText("Generate a greeting", 50))
			return err
		},
		func() (err error) { roots, err = call.ListRoots(ctx); return err },
	)
	if err := firstError(errs); err != nil {
		return fixtures.TestInputRequiredResultMultipleInputsOutput{}, err
	}
	return fixtures.TestInputRequiredResultMultipleInputsOutput{
		Name:     who.Name,
		Greeting: samplingText(greeting),
		Roots:    int64(len(roots)),
	}, nil
}

func (h *handler) TestInputRequiredResultCapabilities(ctx context.Context, call fixtures.TestInputRequiredResultCapabilitiesCall, in fixtures.TestInputRequiredResultCapabilitiesInput) ([]runtime.Content, error) {
	// Each question is asked only if the client declared it can answer it:
	// the runtime refuses the others with ErrCapabilityMissing, which this
	// fixture treats as "skip".
	var got []string
	var mu sync.Mutex
	add := func(s string) { mu.Lock(); got = append(got, s); mu.Unlock() }
	errs := together(
		func() error {
			v, err := call.ElicitCapabilityProbe(ctx, "")
			if err == nil {
				add("elicitation=" + v.Value)
			}
			return err
		},
		func() error {
			res, err := call.CreateMessage(ctx, runtime.UserText("Sample request", 50))
			if err == nil {
				add("sampling=" + samplingText(res))
			}
			return err
		},
	)
	var rest []error
	for _, err := range errs {
		if _, answered := outcome(err); answered || errors.Is(err, runtime.ErrCapabilityMissing) {
			continue
		}
		rest = append(rest, err)
	}
	if err := firstError(rest); err != nil {
		return nil, err
	}
	if len(got) == 0 {
		return []runtime.Content{runtime.Text("No supported capabilities declared")}, nil
	}
	return []runtime.Content{runtime.Text("capabilities-ok: received " + strings.Join(got, ", "))}, nil
}
