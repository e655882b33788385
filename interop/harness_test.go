package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The round trips every client makes, in this order, with the same
// expectations as clients/scenario.mjs for the TypeScript SDKs.
var checkOrder = []string{"elicitation", "sampling", "progress", "plain", "concurrent", "features", "subscriptions"}

const (
	simpleText  = "This is a simple text response for testing."
	sampledText = "interop: a sampled reply from the client"
	callTimeout = 20 * time.Second
)

// toolResult is the part of a tools/call result the checks read.
type toolResult struct {
	Texts   []string
	IsError bool
}

// session is one connected client, whatever its SDK.
type session interface {
	// callTool calls a tool; a non-empty progressToken goes into _meta.
	callTool(ctx context.Context, name string, args map[string]any, progressToken string) (*toolResult, error)
	// features lists, gets, reads and completes the prompts, resources and
	// template of the server (features_test.go) through the SDK's own
	// methods, and returns what it saw.
	features(ctx context.Context, obs *observed) (string, error)
	// subscriptions subscribes to the watched resource, calls the trigger
	// and waits for the update (subscriptions_test.go).
	subscriptions(ctx context.Context, env subscriptionEnv) (string, error)
}

// observed is what the client's handlers saw the server ask for.
type observed struct {
	mu          sync.Mutex
	elicitation []elicitRequest
	sampling    int
	updates     updates // notifications/resources/updated, from the SDK's handler
}

type elicitRequest struct {
	Mode   string
	Schema map[string]any
}

func (o *observed) elicited(mode string, schema any) map[string]any {
	m := toMap(schema)
	o.mu.Lock()
	o.elicitation = append(o.elicitation, elicitRequest{Mode: mode, Schema: m})
	o.mu.Unlock()
	return fillForm(m)
}

func (o *observed) sampled() {
	o.mu.Lock()
	o.sampling++
	o.mu.Unlock()
}

// toMap turns any JSON-shaped value (a map, a struct, a json.RawMessage) into
// a map by a JSON round trip.
func toMap(v any) map[string]any {
	var b []byte
	switch v := v.(type) {
	case json.RawMessage:
		b = v
	case []byte:
		b = v
	default:
		b, _ = json.Marshal(v)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// fillForm answers a form-mode requestedSchema with a value for every
// property, chosen from its constraints (see clients/scenario.mjs).
func fillForm(schema map[string]any) map[string]any {
	out := map[string]any{}
	props, _ := schema["properties"].(map[string]any)
	for key, p := range props {
		prop, _ := p.(map[string]any)
		out[key] = fillValue(key, prop)
	}
	return out
}

func fillValue(key string, prop map[string]any) any {
	if enum, ok := prop["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	if oneOf, ok := prop["oneOf"].([]any); ok && len(oneOf) > 0 {
		return toMap(oneOf[0])["const"]
	}
	switch prop["type"] {
	case "boolean":
		return true
	case "integer", "number":
		v := 7.0
		if prop["type"] == "number" {
			v = 7.5
		}
		if lo, ok := prop["minimum"].(float64); ok && v < lo {
			v = lo
		}
		if hi, ok := prop["maximum"].(float64); ok && v > hi {
			v = hi
		}
		return v
	case "array":
		items, _ := prop["items"].(map[string]any)
		if enum, ok := items["enum"].([]any); ok && len(enum) > 0 {
			return []any{enum[0]}
		}
		for _, k := range []string{"anyOf", "oneOf"} {
			if alts, ok := items[k].([]any); ok && len(alts) > 0 {
				return []any{toMap(alts[0])["const"]}
			}
		}
		return []any{}
	}
	switch prop["format"] {
	case "email":
		return "interop-" + key + "@example.com"
	case "uri":
		return "https://example.com/interop-" + key
	case "date":
		return "2026-07-28"
	case "date-time":
		return "2026-07-28T12:00:00Z"
	}
	return "interop-" + key
}

// samplingAnswer is the client's reply to sampling/createMessage.
var samplingAnswer = struct {
	Role, Text, Model, StopReason string
}{"assistant", sampledText, "mcpgen-interop-model", "endTurn"}

// row is one line of the interop table (the format report.mjs prints).
type row struct {
	Client    string                 `json:"client"`
	Transport string                 `json:"transport"`
	Config    string                 `json:"config"`
	Protocol  string                 `json:"protocol"`
	Get       string                 `json:"get"`
	Results   map[string]checkResult `json:"results"`

	noGET bool // a 2025 HTTP session that opens no standalone GET stream
}

type checkResult struct {
	OK     bool   `json:"ok"`
	NA     bool   `json:"na,omitempty"` // the run cannot make the check (the detail says why)
	Detail string `json:"detail"`
}

// runChecks runs the four round trips on s and fills r.Results. A failed
// check is a test error; the row is written to $INTEROP_RESULTS either way.
func runChecks(t *testing.T, r *row, s session, obs *observed, tap *wireTap) {
	t.Helper()
	for _, name := range checkOrder {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		detail, err := runCheck(ctx, name, r, s, obs, tap)
		cancel()
		var na notApplicable
		if errors.As(err, &na) {
			r.Results[name] = checkResult{OK: true, NA: true, Detail: na.reason}
			continue
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w: no answer within %v (deadlock?)", err, callTimeout)
		}
		if err != nil {
			r.Results[name] = checkResult{OK: false, Detail: err.Error()}
			t.Errorf("%s: %v", name, err)
			continue
		}
		r.Results[name] = checkResult{OK: true, Detail: detail}
	}
}

// failAll marks every check failed, for a client that could not connect.
func failAll(t *testing.T, r *row, err error) {
	t.Helper()
	for _, name := range checkOrder {
		r.Results[name] = checkResult{OK: false, Detail: "connect: " + err.Error()}
	}
	t.Errorf("connect: %v", err)
}

func runCheck(ctx context.Context, name string, r *row, s session, obs *observed, tap *wireTap) (string, error) {
	switch name {
	case "subscriptions":
		return s.subscriptions(ctx, subscriptionEnv{protocol: r.Protocol, noGET: r.noGET, stdio: r.Transport == "stdio", tap: tap, obs: obs})
	case "features":
		return s.features(ctx, obs)
	case "elicitation":
		mark := tap.mark()
		res, err := s.callTool(ctx, "test_elicitation", map[string]any{"message": "interop: please fill in this form"}, "")
		if err := complete(res, err); err != nil {
			return "", err
		}
		obs.mu.Lock()
		asked := append([]elicitRequest(nil), obs.elicitation...)
		obs.mu.Unlock()
		if len(asked) == 0 {
			return "", errors.New("the tool returned without sending elicitation/create")
		}
		last := asked[len(asked)-1]
		if last.Mode != "" && last.Mode != "form" {
			return "", fmt.Errorf("elicitation mode %q, want form", last.Mode)
		}
		sent := fillForm(last.Schema)
		keys := make([]string, 0, len(sent))
		for k := range sent {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		text := strings.Join(res.Texts, "\n")
		for _, k := range keys {
			if v, ok := sent[k].(string); ok && !strings.Contains(text, v) {
				return "", fmt.Errorf("result does not carry the accepted content (%q): %s", v, brief(text))
			}
		}
		if !regexp.MustCompile(`(?i)accept`).MatchString(text) {
			return "", fmt.Errorf("result does not say the form was accepted: %s", brief(text))
		}
		route, err := tap.route(mark, "elicitation/create")
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("form %s accepted, %s", strings.Join(keys, ","), route), nil
	case "sampling":
		mark := tap.mark()
		res, err := s.callTool(ctx, "test_sampling", map[string]any{"prompt": "interop: say hello"}, "")
		if err := complete(res, err); err != nil {
			return "", err
		}
		obs.mu.Lock()
		n := obs.sampling
		obs.mu.Unlock()
		if n == 0 {
			return "", errors.New("the tool returned without sending sampling/createMessage")
		}
		if text := strings.Join(res.Texts, "\n"); !strings.Contains(text, sampledText) {
			return "", fmt.Errorf("result does not carry the sampled text: %s", brief(text))
		}
		route, err := tap.route(mark, "sampling/createMessage")
		if err != nil {
			return "", err
		}
		return "sampled text returned, " + route, nil
	case "progress":
		token := fmt.Sprintf("interop-progress-%d", time.Now().UnixNano())
		res, err := s.callTool(ctx, "test_tool_with_progress", map[string]any{}, token)
		if err := complete(res, err); err != nil {
			return "", err
		}
		notes := tap.progressBeforeResponse(token)
		if len(notes) < 3 {
			return "", fmt.Errorf("%d progress notifications before the response, want >= 3", len(notes))
		}
		for i := 1; i < len(notes); i++ {
			if notes[i].Progress < notes[i-1].Progress {
				return "", fmt.Errorf("progress went down: %v", notes)
			}
		}
		last := notes[len(notes)-1]
		return fmt.Sprintf("%d before the result, last %g/%g", len(notes), last.Progress, last.Total), nil
	case "plain":
		res, err := s.callTool(ctx, "test_simple_text", map[string]any{}, "")
		if err := complete(res, err); err != nil {
			return "", err
		}
		if text := strings.Join(res.Texts, "\n"); text != simpleText {
			return "", fmt.Errorf("text %q, want %q", brief(text), simpleText)
		}
		return "text matches", nil
	case "concurrent":
		return concurrentCalls(ctx, s, obs, tap)
	}
	return "", fmt.Errorf("unknown check %q", name)
}

// concurrentCalls has an elicitation, a sampling request and a progress call
// in flight at once on one session: each server request must ride its own
// call's stream and each answer must reach the right call.
func concurrentCalls(ctx context.Context, s session, obs *observed, tap *wireTap) (string, error) {
	obs.mu.Lock()
	elicitBefore, samplingBefore := len(obs.elicitation), obs.sampling
	obs.mu.Unlock()
	mark := tap.mark()
	type outcome struct {
		res *toolResult
		err error
	}
	calls := []struct {
		name  string
		args  map[string]any
		token string
	}{
		{"test_elicitation", map[string]any{"message": "interop: concurrent form"}, ""},
		{"test_sampling", map[string]any{"prompt": "interop: concurrent prompt"}, ""},
		{"test_tool_with_progress", map[string]any{}, fmt.Sprintf("interop-progress-concurrent-%d", time.Now().UnixNano())},
	}
	out := make([]outcome, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.callTool(ctx, c.name, c.args, c.token)
			out[i] = outcome{res, err}
		}()
	}
	wg.Wait()
	for i, o := range out {
		if err := complete(o.res, o.err); err != nil {
			return "", fmt.Errorf("%s: %w", calls[i].name, err)
		}
	}
	obs.mu.Lock()
	elicitAfter, samplingAfter := len(obs.elicitation), obs.sampling
	obs.mu.Unlock()
	if elicitAfter == elicitBefore {
		return "", errors.New("no elicitation/create during the concurrent calls")
	}
	if samplingAfter == samplingBefore {
		return "", errors.New("no sampling/createMessage during the concurrent calls")
	}
	et, st := strings.Join(out[0].res.Texts, "\n"), strings.Join(out[1].res.Texts, "\n")
	if !strings.Contains(et, "interop-") || strings.Contains(et, sampledText) {
		return "", fmt.Errorf("the elicitation call got the wrong answer: %s", brief(et))
	}
	if !strings.Contains(st, sampledText) {
		return "", fmt.Errorf("the sampling call got the wrong answer: %s", brief(st))
	}
	for _, m := range []string{"elicitation/create", "sampling/createMessage"} {
		if _, err := tap.route(mark, m); err != nil {
			return "", err
		}
	}
	return "three calls at once, each got its own answer", nil
}

func complete(res *toolResult, err error) error {
	if err != nil {
		return err
	}
	if res == nil {
		return errors.New("no result")
	}
	if res.IsError {
		return fmt.Errorf("isError result: %s", brief(strings.Join(res.Texts, " ")))
	}
	return nil
}

func brief(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// moduleVersion is the version this module requires of a dependency, from
// go.mod (test binaries carry no dependency list in their build info).
func moduleVersion(path string) string {
	b, err := os.ReadFile("go.mod")
	if err != nil {
		return "(unknown version)"
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "require" {
			f = f[1:]
		}
		if len(f) >= 2 && f[0] == path {
			return f[1]
		}
	}
	return "(unknown version)"
}

// writeRow appends r to the file named by $INTEROP_RESULTS, if any, for the
// table interop/run.sh prints.
func writeRow(t *testing.T, r *row) {
	t.Helper()
	path := os.Getenv("INTEROP_RESULTS")
	if path == "" {
		return
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

// wireTap is an http.RoundTripper that records what crosses the wire: the
// GET requests the client makes (and their status), the id of each
// tools/call by its progress token, and every message the server sends, in
// the order the client read them. With refuseGET it answers GET itself with
// 405, which a client must treat as "no standalone stream offered".
type wireTap struct {
	base      http.RoundTripper
	refuseGET bool

	mu     sync.Mutex
	gets   []int
	callID map[string]string // progress token -> tools/call request id (as JSON)
	in     []wireMessage
	// arrived is closed and replaced whenever a message is added to in
	// (waitIncoming, subscriptions_test.go).
	arrived chan struct{}
}

type wireMessage struct {
	Via    string // "GET" (the standalone stream) or "POST" (a response stream)
	Method string
	ID     string // raw JSON id, for responses
	Params json.RawMessage
}

type progressNote struct {
	ProgressToken any     `json:"progressToken"`
	Progress      float64 `json:"progress"`
	Total         float64 `json:"total"`
}

func newWireTap(refuseGET bool) *wireTap {
	return &wireTap{base: http.DefaultTransport, refuseGET: refuseGET, callID: map[string]string{}}
}

func (w *wireTap) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet {
		if w.refuseGET {
			w.mu.Lock()
			w.gets = append(w.gets, http.StatusMethodNotAllowed)
			w.mu.Unlock()
			return &http.Response{
				StatusCode: http.StatusMethodNotAllowed, Status: "405 Method Not Allowed",
				Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
				Header:  http.Header{"Allow": {"POST, DELETE"}},
				Body:    http.NoBody,
				Request: req,
			}, nil
		}
	}
	if req.Method == http.MethodPost && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		w.noteRequest(body)
	}
	res, err := w.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if req.Method == http.MethodGet {
		w.mu.Lock()
		w.gets = append(w.gets, res.StatusCode)
		w.mu.Unlock()
	}
	ct := res.Header.Get("Content-Type")
	via := req.Method
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		res.Body = &sseTap{ReadCloser: res.Body, tap: w, via: via}
	case strings.HasPrefix(ct, "application/json"):
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return nil, err
		}
		w.noteIncoming(via, body)
		res.Body = io.NopCloser(bytes.NewReader(body))
	}
	return res, nil
}

func (w *wireTap) noteRequest(body []byte) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta struct {
				ProgressToken any `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" {
		return
	}
	if tok, ok := msg.Params.Meta.ProgressToken.(string); ok {
		w.mu.Lock()
		w.callID[tok] = string(msg.ID)
		w.mu.Unlock()
	}
}

func (w *wireTap) noteIncoming(via string, data []byte) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(data, &msg) != nil {
		return
	}
	w.mu.Lock()
	w.in = append(w.in, wireMessage{Via: via, Method: msg.Method, ID: string(msg.ID), Params: msg.Params})
	if w.arrived != nil {
		close(w.arrived)
		w.arrived = nil
	}
	w.mu.Unlock()
}

// progressBeforeResponse returns the progress notifications for token that
// the client read before the response to the tools/call that carried it.
func (w *wireTap) progressBeforeResponse(token string) []progressNote {
	w.mu.Lock()
	defer w.mu.Unlock()
	id, ok := w.callID[token]
	var notes []progressNote
	for _, m := range w.in {
		if ok && m.Method == "" && m.ID == id {
			break
		}
		if m.Method != "notifications/progress" {
			continue
		}
		var p progressNote
		if json.Unmarshal(m.Params, &p) == nil && p.ProgressToken == token {
			notes = append(notes, p)
		}
	}
	return notes
}

// mark returns a position in the record of incoming messages.
func (w *wireTap) mark() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.in)
}

// route says how the server's requests of method since mark reached the
// client: on a POST response stream (the request-scoped sender, as
// SEP-2260 requires), through input_required results (2026-07-28, where no
// server request crosses the wire), or on the standalone GET stream, which
// is an error.
func (w *wireTap) route(mark int, method string) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	onPOST, onStdio := 0, 0
	for _, m := range w.in[mark:] {
		if m.Method != method || m.ID == "" {
			continue
		}
		switch m.Via {
		case http.MethodGet:
			return "", fmt.Errorf("%s arrived on the standalone GET stream, not on the stream of the tools/call that caused it", method)
		case "stdio":
			onStdio++
		default:
			onPOST++
		}
	}
	switch {
	case onStdio > 0:
		return "as a request on stdio", nil
	case onPOST > 0:
		return "on the POST stream", nil
	}
	return "as an input_required round", nil
}

// getSummary says what became of the client's GET requests.
func (w *wireTap) getSummary() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.gets) == 0 {
		return "none"
	}
	for _, s := range w.gets {
		if s == http.StatusOK {
			return "opened"
		}
	}
	if w.refuseGET {
		return fmt.Sprintf("refused %d (client)", w.gets[0])
	}
	return fmt.Sprintf("refused %d", w.gets[0])
}

// sseTap passes an SSE body through unchanged and records each event's data.
type sseTap struct {
	io.ReadCloser
	tap     *wireTap
	via     string
	pending []byte
	data    bytes.Buffer
}

func (s *sseTap) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	s.pending = append(s.pending, p[:n]...)
	eachLine(&s.pending, func(line []byte) {
		line = bytes.TrimRight(line, "\r")
		switch {
		case len(line) == 0:
			if s.data.Len() > 0 {
				s.tap.noteIncoming(s.via, s.data.Bytes())
				s.data.Reset()
			}
		case bytes.HasPrefix(line, []byte("data:")):
			if s.data.Len() > 0 {
				s.data.WriteByte('\n')
			}
			s.data.Write(bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" ")))
		}
	})
	return n, err
}

// eachLine passes each complete line of *pending, without its newline, to fn
// and leaves the unfinished rest in *pending.
func eachLine(pending *[]byte, fn func(line []byte)) {
	for {
		i := bytes.IndexByte(*pending, '\n')
		if i < 0 {
			return
		}
		line := (*pending)[:i]
		*pending = (*pending)[i+1:]
		fn(line)
	}
}
