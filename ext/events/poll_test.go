package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

func TestPollFromNowThenResume(t *testing.T) {
	e := newEngine(t, Options{}, noteAdded())
	ctx := context.Background()
	emit(t, e, "note_added", note(1, "before"))
	first, err := e.Poll(ctx, nil, PollParams{Name: "note_added"})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Events) != 0 || first.Cursor == nil || first.Truncated || first.NextPollMs != 5000 {
		t.Fatalf("a poll from now: %+v", first)
	}
	emit(t, e, "note_added", note(2, "shopping"))
	emit(t, e, "note_added", note(3, "work"))
	next, err := e.Poll(ctx, nil, PollParams{Name: "note_added", Cursor: first.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	if got := titles(next.Events); !reflect.DeepEqual(got, []string{"shopping", "work"}) {
		t.Fatalf("resumed poll returned %v", got)
	}
	if next.Events[0].Name != "note_added" || next.Events[0].EventID == "" || next.Events[0].Cursor != nil {
		t.Errorf("occurrence %+v", next.Events[0])
	}
	if _, err := time.Parse(time.RFC3339, next.Events[0].Timestamp); err != nil {
		t.Errorf("timestamp %q: %v", next.Events[0].Timestamp, err)
	}
	again, err := e.Poll(ctx, nil, PollParams{Name: "note_added", Cursor: next.Cursor})
	if err != nil || len(again.Events) != 0 || again.HasMore {
		t.Fatalf("a poll at the head: %+v, %v", again, err)
	}
}

func TestPollFiltersByArgumentsAndCapsEvents(t *testing.T) {
	e := newEngine(t, Options{}, noteAdded())
	ctx := context.Background()
	start, _ := e.Poll(ctx, nil, PollParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":"w"}`)})
	for i, title := range []string{"work 1", "home", "work 2", "work 3"} {
		emit(t, e, "note_added", note(i, title))
	}
	page, err := e.Poll(ctx, nil, PollParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":"w"}`), Cursor: start.Cursor, MaxEvents: ptr(2)})
	if err != nil {
		t.Fatal(err)
	}
	if got := titles(page.Events); !reflect.DeepEqual(got, []string{"work 1", "work 2"}) || !page.HasMore {
		t.Fatalf("first page %v hasMore=%v", got, page.HasMore)
	}
	rest, err := e.Poll(ctx, nil, PollParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":"w"}`), Cursor: page.Cursor, MaxEvents: ptr(2)})
	if err != nil {
		t.Fatal(err)
	}
	if got := titles(rest.Events); !reflect.DeepEqual(got, []string{"work 3"}) || rest.HasMore {
		t.Fatalf("second page %v hasMore=%v", got, rest.HasMore)
	}
}

func TestForgedCursorsAreInvalidParams(t *testing.T) {
	other := noteAdded()
	other.Name = "note_removed"
	e := newEngine(t, Options{}, noteAdded(), other)
	ctx := context.Background()
	good, _ := e.Poll(ctx, nil, PollParams{Name: "note_added"})
	foreign, _ := e.Poll(ctx, nil, PollParams{Name: "note_removed"})
	body, tag, _ := strings.Cut(strings.TrimPrefix(*good.Cursor, cursorPrefix), ".")
	flipped := cursorPrefix + body + "." + strings.Map(func(r rune) rune {
		if r == 'A' {
			return 'B'
		}
		return 'A'
	}, tag)
	for _, c := range []string{"", "garbage", "c1.", "c1..", "c1.AAAA.AAAA", flipped, *foreign.Cursor,
		strings.Repeat("c1.", 200), "c1." + strings.Repeat("A", 300) + ".x", "c1.%%%.%%%"} {
		_, err := e.Poll(ctx, nil, PollParams{Name: "note_added", Cursor: ptr(c)})
		re := rpcErr(t, err, runtime.CodeInvalidParams)
		if !strings.Contains(re.Message, "cursor") {
			t.Errorf("cursor %q: message %q does not say what is wrong", c, re.Message)
		}
		if _, err := e.OpenStream(ctx, nil, json.RawMessage("1"), StreamParams{Name: "note_added", Cursor: ptr(c)}); err == nil {
			t.Errorf("cursor %q opened a stream", c)
		}
	}
}

func TestCursorOlderThanRetentionIsTruncated(t *testing.T) {
	typ := noteAdded()
	typ.MaxRetained = 3
	e := newEngine(t, Options{}, typ)
	ctx := context.Background()
	start, _ := e.Poll(ctx, nil, PollParams{Name: "note_added"})
	for i := range 6 {
		emit(t, e, "note_added", note(i, fmt.Sprint("n", i)))
	}
	res, err := e.Poll(ctx, nil, PollParams{Name: "note_added", Cursor: start.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || !reflect.DeepEqual(titles(res.Events), []string{"n3", "n4", "n5"}) {
		t.Fatalf("truncated=%v events %v", res.Truncated, titles(res.Events))
	}
}

// A cursor of a log that no longer exists (here: another process's memory
// store) resumes from now with truncated.
func TestCursorOfAnotherEpochResumesFromNow(t *testing.T) {
	key := []byte(strings.Repeat("k", 32))
	e1 := newEngine(t, Options{CursorKey: key}, noteAdded())
	start, _ := e1.Poll(context.Background(), nil, PollParams{Name: "note_added"})
	e2 := newEngine(t, Options{CursorKey: key}, noteAdded())
	emit(t, e2, "note_added", note(1, "x"))
	res, err := e2.Poll(context.Background(), nil, PollParams{Name: "note_added", Cursor: start.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || len(res.Events) != 0 {
		t.Fatalf("%+v", res)
	}
}

func TestMaxAgeSkipsOldEventsWithTruncated(t *testing.T) {
	e := newEngine(t, Options{}, noteAdded())
	ctx := context.Background()
	start, _ := e.Poll(ctx, nil, PollParams{Name: "note_added"})
	old := note(1, "old")
	old.Time = time.Now().Add(-time.Hour)
	emit(t, e, "note_added", old)
	emit(t, e, "note_added", note(2, "new"))
	res, err := e.Poll(ctx, nil, PollParams{Name: "note_added", Cursor: start.Cursor, MaxAgeMs: ptr(int64(60_000))})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || !reflect.DeepEqual(titles(res.Events), []string{"new"}) {
		t.Fatalf("truncated=%v %v", res.Truncated, titles(res.Events))
	}
}

func TestTargetedEventsReachOnlyTheirSubscription(t *testing.T) {
	e := newEngine(t, Options{}, noteAdded())
	ctx := context.Background()
	a, _ := e.Poll(ctx, alice, PollParams{Name: "note_added"})
	b, _ := e.Poll(ctx, bob, PollParams{Name: "note_added"})
	args, _ := canonicalArguments(nil)
	aliceSub := subscriptionID(principalKey(alice.Principal), "", "note_added", args)
	if _, err := e.Emit(ctx, "note_added", To(aliceSub), note(1, "for alice")); err != nil {
		t.Fatal(err)
	}
	ra, _ := e.Poll(ctx, alice, PollParams{Name: "note_added", Cursor: a.Cursor})
	// Bob's cursor is a position, not a grant: even alice's cursor shows him nothing of hers.
	rb, _ := e.Poll(ctx, bob, PollParams{Name: "note_added", Cursor: b.Cursor})
	rb2, _ := e.Poll(ctx, bob, PollParams{Name: "note_added", Cursor: a.Cursor})
	if len(ra.Events) != 1 || len(rb.Events) != 0 || len(rb2.Events) != 0 {
		t.Fatalf("alice %d, bob %d / %d", len(ra.Events), len(rb.Events), len(rb2.Events))
	}
}

func TestBadRequestsGetClearErrors(t *testing.T) {
	scoped := noteAdded()
	scoped.Name = "secret_note"
	scoped.Scopes = []string{"notes:secret"}
	pushOnly := noteAdded()
	pushOnly.Name = "live_note"
	pushOnly.Delivery = []Mode{ModePush}
	e := newEngine(t, Options{}, noteAdded(), scoped, pushOnly)
	ctx := context.Background()
	codes := SEP3415Codes
	noScopes := &Caller{Allowed: func([]string) bool { return false }}

	re := rpcErr(t, errOf(e.Poll(ctx, nil, PollParams{Name: "nope"})), codes.NotFound)
	if dataOf(t, re)["kind"] != "event" {
		t.Errorf("unknown type: %+v", re)
	}
	re = rpcErr(t, errOf(e.Poll(ctx, nil, PollParams{Name: "live_note"})), codes.Unsupported)
	if d := dataOf(t, re); d["feature"] != "deliveryMode" || d["value"] != "poll" {
		t.Errorf("unsupported mode data %v", d)
	}
	rpcErr(t, errOf(e.Poll(ctx, noScopes, PollParams{Name: "secret_note"})), codes.Forbidden)
	filtered := &Caller{Allowed: noScopes.Allowed, Filtered: true}
	rpcErr(t, errOf(e.Poll(ctx, filtered, PollParams{Name: "secret_note"})), codes.NotFound)
	re = rpcErr(t, errOf(e.Poll(ctx, nil, PollParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":7}`)})), runtime.CodeInvalidParams)
	if !strings.Contains(re.Message, "/prefix") {
		t.Errorf("argument error does not say where: %q", re.Message)
	}
	rpcErr(t, errOf(e.Poll(ctx, nil, PollParams{Name: "note_added", Arguments: json.RawMessage(`[1]`)})), runtime.CodeInvalidParams)
	rpcErr(t, errOf(e.Poll(ctx, nil, PollParams{Name: "note_added", MaxEvents: ptr(0)})), runtime.CodeInvalidParams)
	rpcErr(t, errOf(e.Poll(ctx, nil, PollParams{Name: ""})), runtime.CodeInvalidParams)

	list, _ := e.List(ctx, filtered, ListParams{})
	for _, d := range list.Events {
		if d.Name == "secret_note" {
			t.Error("a filtered list shows a type the caller may not use")
		}
	}
	list, _ = e.List(ctx, nil, ListParams{})
	if len(list.Events) != 3 || !reflect.DeepEqual(list.Events[1].Delivery, []Mode{ModePoll, ModePush, ModeWebhook}) {
		t.Errorf("list %+v", list.Events)
	}
}

func errOf[T any](_ T, err error) error { return err }

func TestEmitValidatesThePayloadBeforeAnythingLeaves(t *testing.T) {
	e := newEngine(t, Options{MaxEventBytes: 1024}, noteAdded())
	ctx := context.Background()
	start, _ := e.Poll(ctx, nil, PollParams{Name: "note_added"})
	for _, bad := range []string{`{"id":"one","title":"x"}`, `{"title":"x"}`, `not json`, `{"id":1,"title":"` + strings.Repeat("x", 2000) + `"}`} {
		_, err := e.Emit(ctx, "note_added", Broadcast(), Event{Data: json.RawMessage(bad)})
		if !errors.Is(err, ErrInvalidPayload) {
			t.Errorf("payload %.40s: %v", bad, err)
		}
	}
	if _, err := e.Emit(ctx, "nope", Broadcast(), note(1, "x")); !errors.Is(err, ErrUnknownEventType) {
		t.Errorf("unknown type: %v", err)
	}
	res, _ := e.Poll(ctx, nil, PollParams{Name: "note_added", Cursor: start.Cursor})
	if len(res.Events) != 0 {
		t.Fatalf("an invalid payload was delivered: %v", titles(res.Events))
	}
}

func TestDuplicateEventIDsAreDropped(t *testing.T) {
	e := newEngine(t, Options{}, noteAdded())
	ctx := context.Background()
	start, _ := e.Poll(ctx, nil, PollParams{Name: "note_added"})
	ev := note(1, "once")
	ev.ID = "upstream-42"
	first := emit(t, e, "note_added", ev)
	second := emit(t, e, "note_added", ev)
	if first.Duplicate || !second.Duplicate {
		t.Fatalf("first %+v second %+v", first, second)
	}
	res, _ := e.Poll(ctx, nil, PollParams{Name: "note_added", Cursor: start.Cursor})
	if len(res.Events) != 1 || res.Events[0].EventID != "upstream-42" {
		t.Fatalf("%+v", res.Events)
	}
}

func TestTransformShapesAndIsValidated(t *testing.T) {
	typ := noteAdded()
	typ.Hooks.Transform = func(_ context.Context, s *Subscription, ev *Event) (json.RawMessage, error) {
		var d map[string]any
		json.Unmarshal(ev.Data, &d)
		if strings.Contains(string(s.Effective), "bad") {
			return json.RawMessage(`{"id":"not a number"}`), nil
		}
		d["title"] = strings.ToUpper(d["title"].(string))
		return json.Marshal(d)
	}
	typ.InputSchema = nil
	e := newEngine(t, Options{}, typ)
	ctx := context.Background()
	good, _ := e.Poll(ctx, nil, PollParams{Name: "note_added"})
	bad, _ := e.Poll(ctx, nil, PollParams{Name: "note_added", Arguments: json.RawMessage(`{"bad":true}`)})
	emit(t, e, "note_added", note(1, "quiet"))
	rg, _ := e.Poll(ctx, nil, PollParams{Name: "note_added", Cursor: good.Cursor})
	rb, _ := e.Poll(ctx, nil, PollParams{Name: "note_added", Arguments: json.RawMessage(`{"bad":true}`), Cursor: bad.Cursor})
	if !reflect.DeepEqual(titles(rg.Events), []string{"QUIET"}) || len(rb.Events) != 0 {
		t.Fatalf("transformed %v, invalid transform delivered %d", titles(rg.Events), len(rb.Events))
	}
}

func TestSubscribeHookRefusesAndNarrows(t *testing.T) {
	typ := noteAdded()
	typ.Hooks.Subscribe = func(_ context.Context, s *Subscription) (json.RawMessage, error) {
		if s.Principal != nil && s.Principal.Subject == "bob" {
			return nil, Refuse("bob may only read his own notes")
		}
		return json.RawMessage(`{"prefix":"mine"}`), nil // narrowed
	}
	e := newEngine(t, Options{}, typ)
	ctx := context.Background()
	re := rpcErr(t, errOf(e.Poll(ctx, bob, PollParams{Name: "note_added"})), SEP3415Codes.Forbidden)
	if dataOf(t, re)["reason"] != "bob may only read his own notes" {
		t.Errorf("refusal %+v", re)
	}
	start, err := e.Poll(ctx, alice, PollParams{Name: "note_added"})
	if err != nil {
		t.Fatal(err)
	}
	emit(t, e, "note_added", note(1, "yours"))
	emit(t, e, "note_added", note(2, "mine"))
	res, _ := e.Poll(ctx, alice, PollParams{Name: "note_added", Cursor: start.Cursor})
	if !reflect.DeepEqual(titles(res.Events), []string{"mine"}) {
		t.Fatalf("narrowed subscription got %v", titles(res.Events))
	}
}

func TestPollLeasesAreBoundedPerPrincipal(t *testing.T) {
	e := newEngine(t, Options{MaxPollLeases: 20}, noteAdded())
	ctx := context.Background()
	for i := range 2 {
		if _, err := e.Poll(ctx, alice, PollParams{Name: "note_added", Arguments: json.RawMessage(fmt.Sprintf(`{"prefix":"%d"}`, i))}); err != nil {
			t.Fatal(err)
		}
	}
	re := rpcErr(t, errOf(e.Poll(ctx, alice, PollParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":"x"}`)})), SEP3415Codes.ResourceExhausted)
	if d := dataOf(t, re); d["bound"] != "MaxPollLeases" || d["limit"] != "subscriptions" || d["max"] != 2.0 {
		t.Errorf("refusal data %v", d)
	}
	if _, err := e.Poll(ctx, bob, PollParams{Name: "note_added"}); err != nil {
		t.Errorf("bob is refused for alice's share: %v", err)
	}
	if _, err := e.Poll(ctx, alice, PollParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":"0"}`)}); err != nil {
		t.Errorf("an existing lease is refused: %v", err)
	}
}
