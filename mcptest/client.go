package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// Client is an MCP client for tests, connected to one server in one era. It
// answers the server's questions from a script (Accept, Decline, Cancel,
// OnElicit, OnSampling, SetRoots), keeps every notification it receives
// (Notifications, Progress, Logs, WaitFor) and, in 2026-07-28, runs the
// input_required rounds of a request for the caller: a call returns only
// when the handler has its answers and returns.
//
// Its methods are safe for concurrent use. Connect closes it when the test
// ends.
type Client struct {
	tb  testing.TB
	era Era
	cfg config
	tr  transport
	// serverCaps are the capabilities a session's initialize result
	// declared; set before Connect returns, read-only after.
	serverCaps json.RawMessage

	nextID atomic.Int64
	script script
	inbox  inbox

	mu     sync.Mutex
	reruns []*rerun
	stray  []error // questions no request of this client could be tied to
	// rootsFetches are the server's own roots fetches the client set off
	// (initialized, list_changed) and has not seen yet, over stdio.
	rootsFetches atomic.Int32
	listens      []context.CancelFunc
	toolHeaders  map[string][]headerParam // 2026-07-28 HTTP: the x-mcp-header properties per tool
	closed       bool
	listening    sync.WaitGroup
}

// Connect connects a client in era to target and initializes its session
// (2026-07-28 has none). It fails the test when that fails; the client is
// closed when the test ends.
func Connect(tb testing.TB, target Target, era Era, opts ...Option) *Client {
	tb.Helper()
	if err := era.check(); err != nil {
		tb.Fatal(err)
	}
	c := &Client{tb: tb, era: era, cfg: newConfig(opts)}
	if c.cfg.hasRoots {
		c.script.roots, c.script.hasRoots = c.cfg.roots, true
	}
	c.inbox.init()
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.timeout)
	defer cancel()
	tr, err := target.open(ctx, &c.cfg, era, c)
	if err != nil {
		tb.Fatalf("mcptest: connecting: %v", err)
	}
	c.tr = tr
	tb.Cleanup(c.cleanup)
	if !era.stateless() {
		if err := c.initialize(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	return c
}

// Era is the protocol version the client speaks.
func (c *Client) Era() Era { return c.era }

// declaresRoots reports whether the client declares the roots capability.
func (c *Client) declaresRoots() bool {
	var caps struct {
		Roots json.RawMessage `json:"roots"`
	}
	return json.Unmarshal(c.capabilities(), &caps) == nil && len(caps.Roots) > 0 && string(caps.Roots) != "null"
}

func (c *Client) capabilities() json.RawMessage {
	if c.cfg.capabilities != nil {
		return c.cfg.capabilities
	}
	return c.era.capabilities()
}

var clientInfo = map[string]string{"name": "mcptest", "version": "1.0.0"}

// initialize opens the session: initialize, the negotiated version checked,
// notifications/initialized, and logging/setLevel when asked for.
func (c *Client) initialize(ctx context.Context) error {
	x := &exchange{method: "initialize"}
	res, err := c.send(ctx, x, map[string]any{
		"protocolVersion": string(c.era), "capabilities": c.capabilities(), "clientInfo": clientInfo,
	})
	if err != nil {
		return err
	}
	var init struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(res, &init); err != nil {
		return fmt.Errorf("mcptest: initialize: %w", err)
	}
	if init.ProtocolVersion != string(c.era) {
		return fmt.Errorf("mcptest: initialize: asked for protocol %s, the server answered %q", c.era, init.ProtocolVersion)
	}
	c.serverCaps = init.Capabilities
	if c.declaresRoots() {
		c.rootsFetches.Add(1)
	}
	if err := c.tr.notify(ctx, &message{JSONRPC: "2.0", Method: "notifications/initialized"}); err != nil {
		return fmt.Errorf("mcptest: notifications/initialized: %w", err)
	}
	if c.cfg.logLevel != "" {
		if _, err := c.send(ctx, &exchange{method: "logging/setLevel"}, map[string]any{"level": c.cfg.logLevel}); err != nil {
			return err
		}
	}
	return nil
}

// exchange is one request of the client and what it brought about: the
// questions its handler asked, the notifications its stream carried.
type exchange struct {
	method  string
	name    string // Mcp-Name: a tool's or prompt's name, a resource's URI
	hasName bool
	header  map[string][]string // 2026-07-28: Mcp-Param-* headers
	// progressToken is the request's _meta.progressToken as JSON ("" for none).
	progressToken string

	mu         sync.Mutex
	asked      map[string]int // questions per key base, for a session's keys
	unanswered error          // the first question the script had no answer for
	acked      chan struct{}  // subscriptions/listen: closed by its acknowledgement
	ackOnce    sync.Once
}

// describe names the request in messages: "tools/call delete_note".
func (x *exchange) describe() string {
	if x == nil {
		return "a message no request caused"
	}
	if x.hasName {
		return x.method + " " + x.name
	}
	return x.method
}

// nextKey numbers a session's questions the way the runtime keys a
// 2026-07-28 call's: base, base_2, base_3...
func (x *exchange) nextKey(base string) string {
	if x == nil {
		return base
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.asked == nil {
		x.asked = map[string]int{}
	}
	x.asked[base]++
	if n := x.asked[base]; n > 1 {
		return base + "_" + strconv.Itoa(n)
	}
	return base
}

func (x *exchange) noAnswer(err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.unanswered == nil {
		x.unanswered = err
	}
}

func (x *exchange) noAnswerErr() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.unanswered
}

// send sends one request of x and returns its result, or an error naming
// the request; a JSON-RPC error is a *runtime.Error in it (errors.As).
func (c *Client) send(ctx context.Context, x *exchange, params map[string]any) (json.RawMessage, error) {
	meta := map[string]any{}
	if x.progressToken != "" {
		meta["progressToken"] = json.RawMessage(x.progressToken)
	}
	if c.era.stateless() {
		meta["io.modelcontextprotocol/protocolVersion"] = string(c.era)
		meta["io.modelcontextprotocol/clientCapabilities"] = c.capabilities()
		meta["io.modelcontextprotocol/clientInfo"] = clientInfo
		if c.cfg.logLevel != "" {
			meta["io.modelcontextprotocol/logLevel"] = c.cfg.logLevel
		}
	}
	if len(meta) > 0 {
		params["_meta"] = meta
	}
	body, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encoding the params of %s: %w", x.method, err)
	}
	id := strconv.AppendInt(nil, c.nextID.Add(1), 10)
	res, err := c.tr.call(ctx, &message{JSONRPC: "2.0", ID: id, Method: x.method, Params: body}, x)
	if err != nil {
		return nil, fmt.Errorf("mcptest: %s: %w", x.describe(), err)
	}
	if res.Error != nil {
		return nil, fmt.Errorf("mcptest: %s: %w", x.describe(), res.Error)
	}
	return res.Result, nil
}

// request sends x and sees it through: in 2026-07-28 it answers each
// input_required round and retries, in a session it retries after the
// URL elicitations of a -32042 error, and it reports the first question
// the script had no answer for. Each run of the handler after the first is
// recorded for the report a failing test gets.
func (c *Client) request(ctx context.Context, x *exchange, params map[string]any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout)
	defer cancel()
	if x.method == "tools/call" || x.method == "prompts/get" || x.method == "resources/read" {
		x.progressToken = strconv.Quote("mcptest-" + strconv.FormatInt(c.nextID.Add(1), 10))
	}
	var run *rerun
	again := func(keys []string) error {
		if run == nil {
			run = &rerun{era: c.era, request: x.describe(), runs: 1}
			c.mu.Lock()
			c.reruns = append(c.reruns, run)
			c.mu.Unlock()
		}
		c.mu.Lock()
		runs := run.again(keys)
		c.mu.Unlock()
		if runs > c.cfg.maxRounds {
			return fmt.Errorf("mcptest: %s still asks after %d rounds (the last asked %v); MaxRounds raises the bound", x.describe(), c.cfg.maxRounds, keys)
		}
		return nil
	}
	for {
		res, err := c.send(ctx, x, params)
		if unanswered := x.noAnswerErr(); unanswered != nil {
			return nil, unanswered
		}
		var rpc *runtime.Error
		if errors.As(err, &rpc) && rpc.Code == runtime.CodeURLElicitationRequired && !c.era.stateless() {
			keys, aerr := c.answerURLRequired(ctx, x, rpc)
			if aerr != nil {
				return nil, aerr
			}
			if keys == nil {
				return nil, err // not accepted: the error stands
			}
			if err := again(keys); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if !c.era.stateless() || resultType(res) != "input_required" {
			return res, nil
		}
		responses, state, keys, err := c.answerRound(ctx, x, res)
		if err != nil {
			return nil, err
		}
		if err := again(keys); err != nil {
			return nil, err
		}
		params["inputResponses"] = responses
		delete(params, "requestState")
		if state != nil {
			params["requestState"] = state
		}
	}
}

func resultType(res json.RawMessage) string {
	var r struct {
		ResultType string `json:"resultType"`
	}
	_ = json.Unmarshal(res, &r)
	return r.ResultType
}

// incoming is the dispatcher: it keeps notifications and answers the
// server's live questions (a session's) from the script.
func (c *Client) incoming(ctx context.Context, m *message, x *exchange) *message {
	if m.isNotification() {
		c.inbox.add(m, x)
		if x != nil && x.acked != nil && m.Method == "notifications/subscriptions/acknowledged" {
			x.ackOnce.Do(func() { close(x.acked) })
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout)
	defer cancel()
	reply := &message{JSONRPC: "2.0", ID: m.ID}
	switch m.Method {
	case "ping":
		reply.Result = json.RawMessage("{}")
	case "elicitation/create", "sampling/createMessage", "roots/list":
		q := c.question(m.Method, m.Params, "", x)
		res, err := c.script.answer(ctx, q)
		// A session's server asks for the roots on its own too, once after
		// notifications/initialized and once after each
		// notifications/roots/list_changed: a roots/list no request caused,
		// which over stdio cannot be told from one of the only request in
		// flight, so the client counts the fetches it set off. One the script
		// has no answer for fails; a call that reads roots then asks within
		// the call, where the missing answer is reported.
		background := x == nil
		if _, overStdio := c.tr.(*stdioTransport); overStdio && m.Method == "roots/list" {
			for n := c.rootsFetches.Load(); n > 0; n = c.rootsFetches.Load() {
				if c.rootsFetches.CompareAndSwap(n, n-1) {
					background = true
					break
				}
			}
		}
		if err != nil {
			switch {
			case background && m.Method == "roots/list":
			case x != nil:
				x.noAnswer(err)
			default:
				c.mu.Lock()
				c.stray = append(c.stray, err)
				c.mu.Unlock()
			}
			reply.Error = &runtime.Error{Code: runtime.CodeInternalError, Message: err.Error()}
			break
		}
		reply.Result = res
	default:
		reply.Error = &runtime.Error{Code: runtime.CodeMethodNotFound, Message: "mcptest: the client does not serve " + m.Method}
	}
	return reply
}

// answerRound answers the questions of an input_required result and
// returns the inputResponses and requestState of the retry.
func (c *Client) answerRound(ctx context.Context, x *exchange, res json.RawMessage) (map[string]json.RawMessage, json.RawMessage, []string, error) {
	var round struct {
		InputRequests map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
		RequestState json.RawMessage `json:"requestState"`
	}
	if err := json.Unmarshal(res, &round); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: reading the input_required result: %w", x.describe(), err)
	}
	keys := sortedKeys(round.InputRequests)
	responses := make(map[string]json.RawMessage, len(keys))
	for _, key := range keys {
		in := round.InputRequests[key]
		q := c.question(in.Method, in.Params, key, x)
		ans, err := c.script.answer(ctx, q)
		if err != nil {
			return nil, nil, nil, err
		}
		responses[key] = ans
	}
	return responses, round.RequestState, keys, nil
}

// answerURLRequired answers the URL elicitations of a 2025-11-25 -32042
// error. It returns their keys when every one was accepted (the client then
// retries the request), nil when one was not.
func (c *Client) answerURLRequired(ctx context.Context, x *exchange, e *runtime.Error) ([]string, error) {
	raw, _ := json.Marshal(e.Data)
	var data struct {
		Elicitations []json.RawMessage `json:"elicitations"`
	}
	if err := json.Unmarshal(raw, &data); err != nil || len(data.Elicitations) == 0 {
		return nil, fmt.Errorf("%s: -32042 without data.elicitations: %w", x.describe(), e)
	}
	var keys []string
	accepted := true
	for _, p := range data.Elicitations {
		q := c.question("elicitation/create", p, "", x)
		ans, err := c.script.answer(ctx, q)
		if err != nil {
			return nil, err
		}
		var r struct {
			Action string `json:"action"`
		}
		_ = json.Unmarshal(ans, &r)
		accepted = accepted && r.Action == "accept"
		keys = append(keys, q.Key)
	}
	if !accepted {
		return nil, nil
	}
	return keys, nil
}

// Close ends the client: its listen streams, its session (DELETE) and its
// connection. Connect calls it when the test ends; calling it again does
// nothing.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	stops := c.listens
	c.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	c.listening.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if c.tr == nil {
		return nil
	}
	return c.tr.close(ctx)
}

// cleanup closes the client when its test ends and reports what went
// wrong. Its messages point at the test's call of Connect or Run.
func (c *Client) cleanup() {
	c.tb.Helper()
	if err := c.Close(); err != nil {
		c.tb.Errorf("mcptest: closing the %s client: %v", c.era, err)
	}
	c.mu.Lock()
	stray := c.stray
	c.mu.Unlock()
	for _, err := range stray {
		c.tb.Errorf("%v", err)
	}
	if c.tb.Failed() {
		if report := c.rerunReport(); report != "" {
			c.tb.Log(report)
		}
	}
}
