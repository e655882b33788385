package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// peer is how one call talks back to its client. Each era implements it:
// the legacy era (2025-03-26 to 2025-11-25) sends a live request on the call's
// own stream through the requestScopedSender and waits for the answer; the
// 2026-07-28 era answers from the retry's inputResponses or records the
// question and returns ErrInputRequired (multi round-trip).
type peer interface {
	// request sends a server-to-client request and returns its result. key
	// names the question within this call (stable across 2026-07-28 retries).
	request(ctx context.Context, key, method string, params any) (json.RawMessage, error)
	// notify sends a notification related to this call (progress, log).
	notify(ctx context.Context, method string, params any) error
	// capabilities are the client's declared capabilities.
	capabilities() ClientCapabilities
	// logLevel is the threshold for notifications/message; "" sends none.
	logLevel() LogLevel
	// progressToken is the request's _meta.progressToken, or nil.
	progressToken() json.RawMessage
	// urlMode is URL-mode elicitation as the era has it, for a new one:
	// its elicitationId and who can be told it completed.
	urlMode() urlMode
	// requireURL ends the call because the user must complete the URL
	// elicitations in list (asked under keys) first: -32042 in the legacy
	// era, an input_required round in 2026-07-28.
	requireURL(keys []string, list []urlParams) error
	// carriesMeta reports whether a request to the client can carry _meta
	// an interceptor adds (a live request can; a 2026-07-28 question must
	// be asked identically in every round).
	carriesMeta() bool
	// waited is how long the client took to answer the question under key,
	// when the era knows it apart from the request itself (2026-07-28);
	// else 0.
	waited(key string) time.Duration
	// client is what the client declared about itself (client_facts.go).
	client() clientFacts
	// sessionRoots is the legacy session's roots cache (roots.go), or nil
	// where there is no session (2026-07-28): Call.Roots then asks.
	sessionRoots() rootsSource
}

// ClientCapabilities are the parts of the client's capabilities the runtime
// acts on. Raw keeps the whole object as the client sent it.
type ClientCapabilities struct {
	Elicitation *struct {
		Form *struct{} `json:"form,omitempty"`
		URL  *struct{} `json:"url,omitempty"`
	} `json:"elicitation,omitempty"`
	Sampling *json.RawMessage `json:"sampling,omitempty"`
	Roots    *struct {
		ListChanged bool `json:"listChanged,omitempty"`
	} `json:"roots,omitempty"`
	Raw json.RawMessage `json:"-"`
}

// elicitForm reports whether the client accepts form-mode elicitation. An
// empty "elicitation": {} means form only (2025-06-18 and 2025-11-25).
func (c ClientCapabilities) elicitForm() bool {
	return c.Elicitation != nil && (c.Elicitation.Form != nil || c.Elicitation.URL == nil)
}

func (c ClientCapabilities) elicitURL() bool { return c.Elicitation != nil && c.Elicitation.URL != nil }

// Call is the runtime's handle on one tools/call. Generated per-tool handles
// wrap it and expose only what the tool declares. A Call is used by one
// handler goroutine; its methods are safe for concurrent use anyway.
//
// In a 2026-07-28 request a call runs as a multi round-trip: an Elicit, CreateMessage or
// ListRoots whose answer is not in the retry returns ErrInputRequired, the round ends with an
// input_required result carrying every question asked, and the client's retry runs the handler
// again from the start, this time with the answers. So work done before a question may run again
// on retry: keep it idempotent (or do it after the last question), and carry small values across
// rounds with SetState/State. Answers given in earlier rounds are returned again without asking.
type Call struct {
	peer peer

	mu    sync.Mutex
	asked map[string]int // questions asked per key base, to number repeats: confirm, confirm_2, ...
	extra []Content      // blocks added with AddContent
	state []byte         // handler state carried across 2026-07-28 rounds

	principal *Principal // who the request's token speaks for; nil unauthenticated
	announce  announcer  // the server's Notify methods
}

// Principal is who the request's access token speaks for (subject, scopes,
// expiry), or nil when the server runs without Options.Auth or over stdio.
// The token itself is never exposed: a handler that calls another service
// must use credentials of its own.
func (c *Call) Principal() *Principal {
	return c.principal
}

// newCall returns the handle of one handler run talking through p, with
// the handler state of earlier rounds, announcing changes to a.
func newCall(a announcer, p peer, state []byte) *Call {
	return &Call{peer: p, state: state, announce: a}
}

// announcer is where a Call's announcements of changes go: the server's
// Notify methods (change_notifications.go).
type announcer interface {
	NotifyResourceUpdated(uri string)
	NotifyResourceListChanged()
	NotifyPromptListChanged()
	NotifyToolListChanged()
}

// key returns the next stable question key for base: base, base_2, base_3...
// A replayed handler asks in the same order, so keys match across rounds.
func (c *Call) key(base string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.asked == nil {
		c.asked = map[string]int{}
	}
	c.asked[base]++
	if n := c.asked[base]; n > 1 {
		return base + "_" + strconv.Itoa(n)
	}
	return base
}

// elicitResult is the client's answer to elicitation/create.
type elicitResult struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
}

// Elicit asks the client to fill in form e and decodes the accepted, validated
// (defaults applied) answer into dst. message overrides e.Message when not
// empty. A declined form returns ErrDeclined, a dismissed one ErrCancelled.
func (c *Call) Elicit(ctx context.Context, e *Elicitation, message string, dst any) error {
	if e.Mode != "form" {
		return fmt.Errorf("elicitation %q is %s mode; use ElicitURL", e.Name, e.Mode)
	}
	if !c.peer.capabilities().elicitForm() {
		return &CapabilityError{Capability: "elicitation.form", detail: fmt.Sprintf("elicitation (form mode), for %q", e.Name)}
	}
	if _, err := e.form(); err != nil {
		return err
	}
	if message == "" {
		message = e.Message
	}
	params := struct {
		Mode            string          `json:"mode"`
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}{"form", message, e.RequestedSchema}
	res, err := c.ask(ctx, c.key(e.Name), params)
	if err != nil {
		return err
	}
	return e.decodeAnswer(res.Content, dst)
}

// ElicitURL asks the client to open url (URL mode, for anything a form must
// not carry, such as credentials). nil means the user consented to open it;
// it does not mean the out-of-band flow finished. It is NewURLElicitation
// then Ask; keep the handle instead to complete the elicitation later.
func (c *Call) ElicitURL(ctx context.Context, e *Elicitation, message, url string) error {
	if e.Mode != "url" {
		return fmt.Errorf("elicitation %q is %s mode; use Elicit", e.Name, e.Mode)
	}
	u, err := c.NewURLElicitation(e)
	if err != nil {
		return err
	}
	return u.Ask(ctx, message, url)
}

func (c *Call) ask(ctx context.Context, key string, params any) (*elicitResult, error) {
	raw, err := c.peer.request(ctx, key, methodElicit, params)
	if err != nil {
		return nil, err
	}
	var res elicitResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("%w: elicitation/create result: %v", ErrInvalidAnswer, err)
	}
	switch res.Action {
	case "accept":
		return &res, nil
	case "decline":
		return nil, ErrDeclined
	case "cancel":
		return nil, ErrCancelled
	default:
		return nil, fmt.Errorf("%w: elicitation/create result: unknown action %q", ErrInvalidAnswer, res.Action)
	}
}

// CreateMessage asks the client's model for a completion (sampling).
func (c *Call) CreateMessage(ctx context.Context, req *SamplingRequest) (*SamplingResult, error) {
	if c.peer.capabilities().Sampling == nil {
		return nil, &CapabilityError{Capability: "sampling", detail: "sampling"}
	}
	raw, err := c.peer.request(ctx, c.key("sampling"), methodCreateMessage, req)
	if err != nil {
		return nil, err
	}
	var res SamplingResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("%w: sampling/createMessage result: %v", ErrInvalidAnswer, err)
	}
	return &res, nil
}

// ListRoots asks the client for its roots.
func (c *Call) ListRoots(ctx context.Context) ([]Root, error) {
	if c.peer.capabilities().Roots == nil {
		return nil, &CapabilityError{Capability: "roots", detail: "roots"}
	}
	raw, err := c.peer.request(ctx, c.key("roots"), methodListRoots, struct{}{})
	if err != nil {
		return nil, err
	}
	var res struct {
		Roots []Root `json:"roots"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("%w: roots/list result: %v", ErrInvalidAnswer, err)
	}
	return res.Roots, nil
}

// Request sends the client a request of the extension's own, or one the
// Call has no method for, and returns its result: params encode as a JSON
// object, and the client must have declared the capability method needs.
// key names the question within the call: the key of its input request in
// 2026-07-28, which must be the same in every round that asks it. It rides
// the call's own stream like Elicit (a live request in a legacy session,
// an input_required round in 2026-07-28) and passes the Outgoing
// interceptors.
func (c *Call) Request(ctx context.Context, key, method string, params any) (json.RawMessage, error) {
	if key == "" || method == "" {
		return nil, errors.New("Call.Request: a key and a method are required")
	}
	return c.peer.request(ctx, key, method, params)
}

// Notify sends a notification related to this call (an extension's own
// kind): on the call's own response stream, or, in a legacy session whose
// client took that response as plain JSON, on its GET stream when one is
// open (otherwise it is dropped, as progress is). params encode as a JSON
// object, or nil for none.
func (c *Call) Notify(ctx context.Context, method string, params any) error {
	if method == "" {
		return errors.New("Call.Notify: a method is required")
	}
	return c.peer.notify(ctx, method, params)
}

// Progress reports progress on this call when the client asked for it (a
// _meta.progressToken); otherwise it does nothing. total <= 0 means unknown.
func (c *Call) Progress(ctx context.Context, progress, total float64, message string) error {
	tok := c.peer.progressToken()
	if tok == nil {
		return nil
	}
	p := struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		Progress      float64         `json:"progress"`
		Total         float64         `json:"total,omitempty"`
		Message       string          `json:"message,omitempty"`
	}{tok, progress, total, message}
	return c.peer.notify(ctx, methodProgress, p)
}

// Log sends notifications/message when level passes the client's threshold
// (logging/setLevel, or a 2026-07-28 request's logLevel); otherwise nothing.
func (c *Call) Log(ctx context.Context, level LogLevel, logger string, data any) error {
	threshold := c.peer.logLevel()
	if threshold == "" || !logLevelEnabled(level, threshold) {
		return nil
	}
	p := struct {
		Level  LogLevel `json:"level"`
		Logger string   `json:"logger,omitempty"`
		Data   any      `json:"data"`
	}{level, logger, data}
	return c.peer.notify(ctx, methodLogMessage, p)
}

// AddContent appends blocks to the result. For a tool with an outputSchema
// they replace the structured output's JSON text block, unless AddOutputJSON
// asks for it among them; a tool that fails keeps them after its error's
// text (tool_adapter.go).
func (c *Call) AddContent(blocks ...Content) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.extra = append(c.extra, blocks...)
}

func (c *Call) extraContent() []Content {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.extra
}

// State returns the handler's own state as saved with SetState in an earlier
// 2026-07-28 round of this call (nil in the first round and in legacy
// sessions, where the handler simply keeps running).
func (c *Call) State() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// SetState saves a small value that the next 2026-07-28 round of this call gets
// back from State. It travels sealed inside requestState, so keep it small
// (a few KB) and free of secrets the client must not hold even encrypted.
func (c *Call) SetState(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state = append([]byte(nil), b...)
}

// A handler announces what its call changed through its Call, without
// holding the Server: the same notifications as the Server's Notify
// methods, which code outside a call (a background job, a file watcher)
// uses directly.

// NotifyResourceUpdated tells the clients subscribed to uri that it
// changed, as Server.NotifyResourceUpdated does.
func (c *Call) NotifyResourceUpdated(uri string) { c.announce.NotifyResourceUpdated(uri) }

// NotifyResourceListChanged tells every client that the resource list
// changed, as Server.NotifyResourceListChanged does.
func (c *Call) NotifyResourceListChanged() { c.announce.NotifyResourceListChanged() }

// NotifyPromptListChanged tells every client that the prompt list changed,
// as Server.NotifyPromptListChanged does.
func (c *Call) NotifyPromptListChanged() { c.announce.NotifyPromptListChanged() }

// NotifyToolListChanged tells every client that the tool list changed, as
// Server.NotifyToolListChanged does.
func (c *Call) NotifyToolListChanged() { c.announce.NotifyToolListChanged() }

// extension returns the client's capabilities.extensions[id].
func (c ClientCapabilities) extension(id string) (json.RawMessage, bool) {
	if len(c.Raw) == 0 {
		return nil, false
	}
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(c.Raw, &caps) != nil {
		return nil, false
	}
	v, ok := caps.Extensions[id]
	return v, ok
}
