package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/runtime"
)

// The engine on the runtime's extension seam: the five methods as rows of
// the server's method table (served in 2025-11-25 sessions and in
// 2026-07-28, over HTTP and stdio, like the core's), the capability in
// capabilities.extensions (and the design sketch's top-level "events" in
// a legacy initialize), notifications/events/list_changed to every client
// that has a channel for it. The runtime knows nothing of events.

// Versions are the protocol versions whose capabilities declare the
// extension and which serve its methods. SEP-3415 defines it for
// 2026-07-28; 2025-11-25 sessions get it too (nothing in the extension
// depends on the era), which is what deployed clients speak.
var Versions = []string{runtime.Version20251125, runtime.Version20260728}

// legacyMember is the capability member of the extension's design sketch
// (capabilities.events), which clients that predate capabilities.extensions
// read.
const legacyMember = "events"

// Enable serves e on s: the events methods, the capability, and
// notifications/events/list_changed when e's types change. The server
// closes e when it closes. A server serves one Engine: enabling a second
// fails with runtime.ErrExtensionAdded (Served finds the first).
func Enable(s *runtime.Server, e *Engine) error {
	if e == nil {
		return errors.New("events.Enable: no Engine")
	}
	if have, ok := s.Extension(ExtensionID); ok {
		if have.State == e {
			return nil
		}
		return fmt.Errorf("events: %s is served already, by another Engine: %w", ExtensionID, runtime.ErrExtensionAdded)
	}
	return s.AddExtension(e.extension())
}

// Served returns the Engine s serves, if any.
func Served(s *runtime.Server) (*Engine, bool) {
	have, ok := s.Extension(ExtensionID)
	if !ok {
		return nil, false
	}
	e, ok := have.State.(*Engine)
	return e, ok
}

// Ensure returns the Engine s serves, enabling a new one with opts when
// there is none (opts are then ignored). The generated Register of a
// package with event types calls it with the zero Options; to choose the
// Options (a shared Store for replicas, a CursorKey, the bounds) enable an
// Engine before Register runs.
func Ensure(s *runtime.Server, opts Options) (*Engine, error) {
	if e, ok := Served(s); ok {
		return e, nil
	}
	if _, ok := s.Extension(ExtensionID); ok {
		return nil, fmt.Errorf("events: %s was added by another package: %w", ExtensionID, runtime.ErrExtensionAdded)
	}
	e, err := New(opts)
	if err != nil {
		return nil, err
	}
	if err := Enable(s, e); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// Register serves types on s: on the Engine s serves, or on a new one
// with the zero Options (Ensure). The generated Register of a package with
// event types calls it; a type already served (a second Register of the
// same package) is an error.
func Register(s *runtime.Server, types ...EventType) error {
	e, err := Ensure(s, Options{})
	if err != nil {
		return err
	}
	for _, t := range types {
		if err := e.Add(t); err != nil {
			return err
		}
	}
	return nil
}

// extension is the engine as the seam takes it.
func (e *Engine) extension() runtime.Extension {
	scoped := func(ctx context.Context, req *runtime.MethodRequest) (string, []string, error) {
		return e.authorize(req)
	}
	return runtime.Extension{
		ID:       ExtensionID,
		Settings: e.Settings(),
		Versions: slices.Clone(Versions),
		Methods: []runtime.Method{
			{Name: MethodList, Cheap: true, Authorize: runtime.NoScopes, Serve: e.serveList},
			{Name: MethodPoll, Authorize: scoped, Serve: e.servePoll},
			{Name: MethodStream, Authorize: scoped, Stream: e.serveStream},
			{Name: MethodSubscribe, Authorize: scoped, Serve: e.serveSubscribe},
			{Name: MethodUnsubscribe, Authorize: scoped, Serve: e.serveUnsubscribe},
		},
		LegacyCapability: func(version string) (string, json.RawMessage, bool) {
			return legacyMember, e.Settings(), slices.Contains(Versions, version)
		},
		Init:  e.init,
		State: e,
	}
}

// init ties the engine to the server's life and its list changes to
// notifications/events/list_changed.
func (e *Engine) init(h *runtime.Host) error {
	e.OnListChanged(func() {
		if err := h.Notify(NotificationListChanged, nil); err != nil {
			h.Logger().Warn("events: announcing a list change", "err", err)
		}
	})
	h.Go(func() {
		<-h.Context().Done()
		e.Close()
	})
	return nil
}

// authorize is the rule of the methods that name an event type: the
// type's scopes (an unknown type needs none; its Serve answers NotFound).
func (e *Engine) authorize(req *runtime.MethodRequest) (string, []string, error) {
	var p struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(req.Params, &p) != nil || p.Name == "" {
		return "", nil, nil // Serve refuses the params, with the field
	}
	scopes := e.Scopes(p.Name)
	if scopes == nil {
		return "", nil, nil
	}
	return fmt.Sprintf("event type %q", p.Name), scopes, nil
}

// caller is who req comes from, as the engine bounds and authorizes them.
func caller(req *runtime.MethodRequest) *Caller {
	return &Caller{Principal: req.Principal, Allowed: req.Allowed, Filtered: req.Filtered(), Key: req.Caller}
}

// decodeParams decodes req's params into p: a member of the wrong type is
// -32602 naming it by its JSON Pointer, worded as every method's is
// (runtime.DecodeParams).
func decodeParams(req *runtime.MethodRequest, p any) error {
	return runtime.DecodeParams(req.Params, p)
}

func (e *Engine) serveList(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
	var p ListParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	c := caller(req)
	res, err := e.List(ctx, c, p)
	if err != nil {
		return nil, err
	}
	out := &runtime.MethodResult{Result: res}
	if c.Filtered {
		out.Cache = &runtime.CacheHint{Scope: runtime.CachePrivate}
	}
	return out, nil
}

func (e *Engine) servePoll(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
	var p PollParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	res, err := e.Poll(ctx, caller(req), p)
	if err != nil {
		return nil, err
	}
	return &runtime.MethodResult{Result: res}, nil
}

func (e *Engine) serveSubscribe(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
	var p SubscribeParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	res, err := e.Subscribe(ctx, caller(req), p)
	if err != nil {
		return nil, err
	}
	return &runtime.MethodResult{Result: res}, nil
}

func (e *Engine) serveUnsubscribe(ctx context.Context, req *runtime.MethodRequest) (*runtime.MethodResult, error) {
	var p UnsubscribeParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	if err := e.Unsubscribe(ctx, caller(req), p); err != nil {
		return nil, err
	}
	return &runtime.MethodResult{Result: struct{}{}}, nil
}

// serveStream holds an events/stream request open: the confirmation, then
// events, heartbeats and gap notices as the engine's Stream yields them,
// until the client goes away (nothing more is sent) or the server or the
// engine ends the stream (its final result, tagged like its
// notifications). The runtime bounds the request as a stream of its
// caller (runtime.Options.MaxGETStreams), outside the call caps; the
// engine bounds it again (Options.MaxStreams).
func (e *Engine) serveStream(ctx context.Context, req *runtime.MethodRequest, out *runtime.Stream) (*runtime.MethodResult, error) {
	var p StreamParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	s, err := e.OpenStream(ctx, caller(req), req.ID, p)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	next, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-out.Closing():
			stop()
		case <-next.Done():
		}
	}()
	for {
		n, err := s.Next(next)
		if err != nil {
			select {
			case <-out.Closing():
				return streamEnd(req, s), nil // the server ends it
			default:
			}
			if ctx.Err() != nil {
				return nil, ctx.Err() // the client went away
			}
			return streamEnd(req, s), nil // the engine ends it
		}
		if err := out.Send(ctx, n.Method, n.Params); err != nil {
			return nil, err
		}
	}
}

// streamEnd is the final result of a stream the server ends: its _meta
// names the stream, in a legacy result's body, or in the members the
// 2026-07-28 framing adds to its own _meta.
func streamEnd(req *runtime.MethodRequest, s *Stream) *runtime.MethodResult {
	if !req.Stateless() {
		return &runtime.MethodResult{Result: s.Result()}
	}
	id := s.Result().Meta.SubscriptionID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return &runtime.MethodResult{Result: struct{}{}, Meta: map[string]json.RawMessage{SubscriptionIDMetaKey: id}}
}
