package events

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// noteAdded is the scaffold's event type in miniature: a note's id and
// title, filtered by an optional title prefix.
func noteAdded() EventType {
	return EventType{
		Name:          "note_added",
		Description:   "A note was added",
		InputSchema:   json.RawMessage(`{"type":"object","properties":{"prefix":{"type":"string","maxLength":64}},"additionalProperties":false}`),
		PayloadSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"},"title":{"type":"string"}},"required":["id","title"]}`),
		Hooks:         Hooks{Match: matchPrefix},
	}
}

func matchPrefix(_ context.Context, s *Subscription, ev *Event) bool {
	var args struct{ Prefix string }
	var data struct{ Title string }
	json.Unmarshal(s.Effective, &args)
	json.Unmarshal(ev.Data, &data)
	return strings.HasPrefix(data.Title, args.Prefix)
}

func newEngine(t testing.TB, o Options, types ...EventType) *Engine {
	t.Helper()
	if o.tick == 0 {
		o.tick = 20 * time.Millisecond
	}
	if o.Webhook.PollEvery == 0 {
		o.Webhook.PollEvery = 20 * time.Millisecond
	}
	e, err := New(o, types...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func note(id int, title string) Event {
	b, _ := json.Marshal(map[string]any{"id": id, "title": title})
	return Event{Data: b}
}

func emit(t testing.TB, e *Engine, name string, ev Event) Emitted {
	t.Helper()
	out, err := e.Emit(context.Background(), name, Broadcast(), ev)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var alice = &Caller{Principal: &runtime.Principal{Issuer: "https://as.test", Subject: "alice", Expiry: time.Now().Add(time.Hour)}}
var bob = &Caller{Principal: &runtime.Principal{Issuer: "https://as.test", Subject: "bob", Expiry: time.Now().Add(time.Hour)}}

// rpcErr asserts err is a JSON-RPC error with code, and returns it.
func rpcErr(t testing.TB, err error, code int) *runtime.Error {
	t.Helper()
	var re *runtime.Error
	if !errors.As(err, &re) {
		t.Fatalf("got %v (%T), want a JSON-RPC error %d", err, err, code)
	}
	if re.Code != code {
		t.Fatalf("got error %d %q, want code %d", re.Code, re.Message, code)
	}
	return re
}

func dataOf(t testing.TB, re *runtime.Error) map[string]any {
	t.Helper()
	b, _ := json.Marshal(re.Data)
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

func ptr[T any](v T) *T { return &v }

func titles(evs []Occurrence) []string {
	var out []string
	for _, ev := range evs {
		var d struct{ Title string }
		json.Unmarshal(ev.Data, &d)
		out = append(out, d.Title)
	}
	return out
}

// eventually waits for cond, failing after a few seconds.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
