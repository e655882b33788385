package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime"
)

// A Question is what a handler asked the client: an elicitation (a form or a
// URL), a sampling request or a request for the client's roots.
type Question struct {
	// Method is "elicitation/create", "sampling/createMessage" or
	// "roots/list".
	Method string
	// Key names the question within its request, the way the runtime keys a
	// 2026-07-28 call's questions: the form's name (confirm_delete, then
	// confirm_delete_2 when the handler asks it again), "sampling",
	// "roots". A session's questions get the same keys, counted by the
	// client.
	Key string
	// Form is the elicitation's name, or "" when the client cannot tell:
	// 2026-07-28 keys carry it; in a session the client matches the
	// requestedSchema (or, for URL mode, the mode) against the forms it was
	// told about (DeclareForms; a generated test package declares its own).
	Form string
	// Mode is "form" or "url" (elicitations).
	Mode    string
	Message string
	// URL and ElicitationID are a URL-mode elicitation's (the ID only in
	// 2025-11-25).
	URL, ElicitationID string
	// RequestedSchema is a form's schema as the server sent it.
	RequestedSchema json.RawMessage
	// Sampling is a sampling request's params.
	Sampling *runtime.SamplingRequest
	// Request names the request whose handler asked ("tools/call
	// delete_note").
	Request string

	candidates []string // forms that match equally well, when Form is ""
}

// Form describes an elicitation the server may ask for, so that the client
// can name a session's questions (which carry no name): a generated test
// package declares its package's forms when it wraps a client.
type Form struct {
	Name string
	// Mode is "form" or "url".
	Mode string
	// RequestedSchema is the form's schema, as the server sends it.
	RequestedSchema json.RawMessage
}

// ElicitResult is the client's answer to an elicitation.
type ElicitResult struct {
	// Action is "accept", "decline" or "cancel".
	Action string
	// Content is an accepted form's answer: any value that encodes as the
	// JSON object the form asks for (a generated form struct, a map). It is
	// nil for URL mode.
	Content any
}

// UnansweredError is what a request returns when its handler asked a
// question the test scripted no answer for.
type UnansweredError struct {
	Question *Question
}

func (e *UnansweredError) Error() string {
	q := e.Question
	switch q.Method {
	case "sampling/createMessage":
		return fmt.Sprintf("mcptest: %s asked for sampling (%s) and the test scripted no answer: use OnSampling", q.Request, q.Key)
	case "roots/list":
		return fmt.Sprintf("mcptest: %s asked for the client's roots and the test scripted none: use SetRoots", q.Request)
	}
	what := fmt.Sprintf("elicitation %s (%s mode, %q)", q.Key, q.Mode, q.Message)
	if q.Form == "" {
		why := "no form declared with DeclareForms has this requestedSchema"
		if q.Mode == "url" {
			why = "no single URL-mode form was declared with DeclareForms"
		}
		if len(q.candidates) > 1 {
			why = "forms " + strings.Join(q.candidates, " and ") + " look the same on the wire"
		}
		return fmt.Sprintf("mcptest: %s asked %s and the client cannot tell which form it is (%s); answer it with OnElicit(\"\", ...)", q.Request, what, why)
	}
	return fmt.Sprintf("mcptest: %s asked %s and the test scripted no answer: use Accept, Decline or Cancel(%q) "+
		"(a generated test package has typed Answer, Decline and Cancel methods per form)", q.Request, what, q.Form)
}

// script is what the test answers.
type script struct {
	mu       sync.Mutex
	forms    []Form
	elicit   map[string]func(context.Context, *Question) (ElicitResult, error) // by key or form name; "" for any
	sampling func(context.Context, *runtime.SamplingRequest) (*runtime.SamplingResult, error)
	roots    []runtime.Root
	hasRoots bool
	asked    int // roots/list questions answered or not, in every era
}

// DeclareForms tells the client the forms the server may ask for, so that
// a session's questions are named (Question.Form) and answered by name. A
// form declared again under the same name replaces the earlier one.
func (c *Client) DeclareForms(forms ...Form) {
	c.script.mu.Lock()
	defer c.script.mu.Unlock()
	for _, f := range forms {
		c.script.forms = slices.DeleteFunc(c.script.forms, func(old Form) bool { return old.Name == f.Name })
		c.script.forms = append(c.script.forms, f)
	}
}

// OnElicit answers the elicitations of form (a form's name, or a key such
// as "confirm_delete_2" for the second time one request asks it) with
// answer. A key's answer wins over its form's; form "" answers every
// elicitation nothing more specific answers. The last call for a name
// replaces the earlier ones.
func (c *Client) OnElicit(form string, answer func(ctx context.Context, q *Question) (ElicitResult, error)) {
	c.script.mu.Lock()
	defer c.script.mu.Unlock()
	if c.script.elicit == nil {
		c.script.elicit = map[string]func(context.Context, *Question) (ElicitResult, error){}
	}
	c.script.elicit[form] = answer
}

// Accept answers form's elicitations by accepting them with content (a
// generated form struct, or a map; nil for a URL-mode elicitation, where
// accepting means the user agreed to open the URL).
func (c *Client) Accept(form string, content any) {
	c.OnElicit(form, func(context.Context, *Question) (ElicitResult, error) {
		return ElicitResult{Action: "accept", Content: content}, nil
	})
}

// Decline answers form's elicitations with decline: the user saw the
// question and said no.
func (c *Client) Decline(form string) {
	c.OnElicit(form, func(context.Context, *Question) (ElicitResult, error) {
		return ElicitResult{Action: "decline"}, nil
	})
}

// Cancel answers form's elicitations with cancel: the user dismissed the
// question without choosing.
func (c *Client) Cancel(form string) {
	c.OnElicit(form, func(context.Context, *Question) (ElicitResult, error) {
		return ElicitResult{Action: "cancel"}, nil
	})
}

// OnSampling answers sampling/createMessage with answer.
func (c *Client) OnSampling(answer func(ctx context.Context, req *runtime.SamplingRequest) (*runtime.SamplingResult, error)) {
	c.script.mu.Lock()
	defer c.script.mu.Unlock()
	c.script.sampling = answer
}

// SetRoots answers roots/list with roots (none at all is an answer too).
// It tells the server nothing: to change the roots of a session the server
// has asked already, use ChangeRoots.
func (c *Client) SetRoots(roots ...runtime.Root) {
	c.script.mu.Lock()
	defer c.script.mu.Unlock()
	c.script.roots, c.script.hasRoots = append([]runtime.Root{}, roots...), true
}

// ChangeRoots answers roots/list with roots from now on and, in a session,
// tells the server they changed (notifications/roots/list_changed), as a
// client whose user opened another folder does; the server then asks for
// them again. In 2026-07-28 there is nothing to tell: each call that reads
// roots asks.
func (c *Client) ChangeRoots(ctx context.Context, roots ...runtime.Root) error {
	c.SetRoots(roots...)
	if c.era.stateless() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout)
	defer cancel()
	c.rootsFetches.Add(1)
	if err := c.tr.notify(ctx, &message{JSONRPC: "2.0", Method: "notifications/roots/list_changed"}); err != nil {
		return fmt.Errorf("mcptest: notifications/roots/list_changed: %w", err)
	}
	return nil
}

// RootsAsked is how many times the server asked the client for its roots
// (roots/list), in a session's background as well as within calls, and in
// 2026-07-28 rounds: a server that keeps roots as session state asks once
// per change, not once per call.
func (c *Client) RootsAsked() int {
	c.script.mu.Lock()
	defer c.script.mu.Unlock()
	return c.script.asked
}

// question reads a question of the server. key is the 2026-07-28 input
// request key, or "" for a session's live question, whose key the client
// counts itself.
func (c *Client) question(method string, params json.RawMessage, key string, x *exchange) *Question {
	q := &Question{Method: method, Key: key, Request: x.describe()}
	switch method {
	case "elicitation/create":
		var p struct {
			Mode            string          `json:"mode"`
			Message         string          `json:"message"`
			URL             string          `json:"url"`
			ElicitationID   string          `json:"elicitationId"`
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		}
		_ = json.Unmarshal(params, &p)
		q.Mode, q.Message, q.URL, q.ElicitationID, q.RequestedSchema = p.Mode, p.Message, p.URL, p.ElicitationID, p.RequestedSchema
		if q.Mode == "" {
			q.Mode = "form"
		}
		if key != "" {
			q.Form = c.script.formOfKey(key)
		} else {
			q.Form, q.candidates = c.script.formOf(q)
			base := q.Form
			if base == "" {
				base = "elicitation"
			}
			q.Key = x.nextKey(base)
		}
	case "sampling/createMessage":
		q.Sampling = &runtime.SamplingRequest{}
		_ = json.Unmarshal(params, q.Sampling)
		if key == "" {
			q.Key = x.nextKey("sampling")
		}
	case "roots/list":
		if key == "" {
			q.Key = x.nextKey("roots")
		}
	}
	return q
}

// formOfKey is the form a 2026-07-28 key names: the key itself, or the
// key without the _N of a repeated question.
func (s *script) formOfKey(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	base := key
	if i := strings.LastIndexByte(key, '_'); i > 0 {
		if _, err := strconv.Atoi(key[i+1:]); err == nil {
			base = key[:i]
		}
	}
	if len(s.forms) == 0 {
		return base
	}
	for _, name := range []string{key, base} {
		for _, f := range s.forms {
			if f.Name == name {
				return name
			}
		}
	}
	return ""
}

// formOf names a session's elicitation by what it carries: the one declared
// form of its mode whose requestedSchema equals it (URL mode: the one URL
// form). It returns the candidates when several match.
func (s *script) formOf(q *Question) (string, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sent any
	_ = json.Unmarshal(q.RequestedSchema, &sent)
	var match []string
	for _, f := range s.forms {
		if f.Mode != q.Mode {
			continue
		}
		if q.Mode == "form" {
			var declared any
			if json.Unmarshal(f.RequestedSchema, &declared) != nil || !reflect.DeepEqual(sent, declared) {
				continue
			}
		}
		match = append(match, f.Name)
	}
	if len(match) == 1 {
		return match[0], nil
	}
	return "", match
}

// answer answers q from the script.
func (s *script) answer(ctx context.Context, q *Question) (json.RawMessage, error) {
	s.mu.Lock()
	var elicit func(context.Context, *Question) (ElicitResult, error)
	for _, name := range []string{q.Key, q.Form, ""} {
		if f, ok := s.elicit[name]; ok {
			elicit = f
			break
		}
	}
	sampling, roots, hasRoots := s.sampling, s.roots, s.hasRoots
	if q.Method == "roots/list" {
		s.asked++
	}
	s.mu.Unlock()

	switch q.Method {
	case "elicitation/create":
		if elicit == nil {
			return nil, &UnansweredError{Question: q}
		}
		r, err := elicit(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("mcptest: answering %s of %s: %w", q.Key, q.Request, err)
		}
		switch r.Action {
		case "accept", "decline", "cancel":
		default:
			return nil, fmt.Errorf("mcptest: the answer to %s of %s has action %q (want accept, decline or cancel)", q.Key, q.Request, r.Action)
		}
		out := map[string]any{"action": r.Action}
		if r.Action == "accept" && r.Content != nil {
			out["content"] = r.Content
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("mcptest: encoding the answer to %s of %s: %w", q.Key, q.Request, err)
		}
		return b, nil
	case "sampling/createMessage":
		if sampling == nil {
			return nil, &UnansweredError{Question: q}
		}
		r, err := sampling(ctx, q.Sampling)
		if err != nil {
			return nil, fmt.Errorf("mcptest: answering %s of %s: %w", q.Key, q.Request, err)
		}
		return json.Marshal(r)
	case "roots/list":
		if !hasRoots {
			return nil, &UnansweredError{Question: q}
		}
		return json.Marshal(map[string]any{"roots": roots})
	}
	return nil, fmt.Errorf("mcptest: %s asked %s, which the client does not serve", q.Request, q.Method)
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
