package main

import (
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mcpgen/mcpgen/ext/events"
	"github.com/mcpgen/mcpgen/redisstore"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/redis/go-redis/v9"
)

// addEvents serves the events extension with the event type note_added,
// its log, subscriptions and deliveries in Redis (in this process with
// -memory), and the tool "emit_note", which emits one note_added from
// whichever replica runs it. Every replica derives the same cursor key
// from the shared state key, so a cursor from one resumes on another.
func addEvents(srv *runtime.Server, rdb redis.UniversalClient, prefix string, stateKey []byte, memory bool, logger *slog.Logger) (func(), error) {
	key, err := hkdf.Key(sha256.New, stateKey, nil, "events cursor", 32)
	if err != nil {
		return nil, err
	}
	o := events.Options{CursorKey: key, Logger: logger}
	stop := func() {}
	if !memory {
		st := redisstore.NewEventStore(rdb, redisstore.EventOptions{Prefix: prefix, Logger: logger})
		o.Store, stop = st, func() { st.Close() }
	}
	e, err := events.New(o, events.EventType{
		Name:          "note_added",
		InputSchema:   json.RawMessage(`{"type":"object","properties":{"prefix":{"type":"string"}}}`),
		PayloadSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"},"title":{"type":"string"}},"required":["id","title"]}`),
		Hooks: events.Hooks{Match: func(_ context.Context, s *events.Subscription, ev *events.Event) bool {
			var a struct{ Prefix string }
			var d struct{ Title string }
			json.Unmarshal(s.Effective, &a)
			json.Unmarshal(ev.Data, &d)
			return strings.HasPrefix(d.Title, a.Prefix)
		}},
	})
	if err != nil {
		stop()
		return nil, err
	}
	if err := events.Enable(srv, e); err != nil {
		e.Close()
		stop()
		return nil, err
	}
	err = srv.AddTool(runtime.Tool{Name: "emit_note",
		Definition: json.RawMessage(`{"name":"emit_note","description":"Emits note_added.","inputSchema":{"type":"object","properties":{"id":{"type":"integer"},"title":{"type":"string"}},"required":["id","title"]}}`),
		Handler: func(ctx context.Context, call *runtime.Call, args json.RawMessage) (*runtime.ToolResult, error) {
			var in struct {
				ID int `json:"id"`
			}
			json.Unmarshal(args, &in)
			out, err := e.Emit(ctx, "note_added", events.Broadcast(), events.Event{ID: fmt.Sprintf("note-%d", in.ID), Data: args})
			if err != nil {
				return nil, err
			}
			return runtime.ContentResult(call, []runtime.Content{runtime.Text(out.EventID)}), nil
		}})
	return stop, err
}
