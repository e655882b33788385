package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func next(t testing.TB, s *Stream) Notification {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n, err := s.Next(ctx)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return n
}

func nextEvent(t testing.TB, s *Stream) *EventParams {
	t.Helper()
	for {
		n := next(t, s)
		if n.Method == NotificationHeartbeat {
			continue
		}
		if n.Method != NotificationEvent {
			t.Fatalf("got %s %+v, want an event", n.Method, n.Params)
		}
		return n.Params.(*EventParams)
	}
}

func title(ev *EventParams) string {
	var d struct{ Title string }
	json.Unmarshal(ev.Data, &d)
	return d.Title
}

func TestStreamConfirmsThenDeliversWithItsID(t *testing.T) {
	e := newEngine(t, Options{}, noteAdded())
	s, err := e.OpenStream(context.Background(), alice, json.RawMessage(`"listen-1"`), StreamParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":"w"}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := next(t, s)
	a, ok := n.Params.(*ActiveParams)
	if n.Method != NotificationActive || !ok || a.Cursor == nil || a.Truncated || string(a.Meta.SubscriptionID) != `"listen-1"` {
		t.Fatalf("first notification %s %+v", n.Method, n.Params)
	}
	emit(t, e, "note_added", note(1, "home"))
	emit(t, e, "note_added", note(2, "work"))
	ev := nextEvent(t, s)
	if title(ev) != "work" || ev.Cursor == nil || string(ev.Meta.SubscriptionID) != `"listen-1"` {
		t.Fatalf("event %+v", ev)
	}
	b, _ := json.Marshal(ev)
	var wire map[string]any
	json.Unmarshal(b, &wire)
	if wire["_meta"].(map[string]any)[SubscriptionIDMetaKey] != "listen-1" || wire["eventId"] == nil {
		t.Errorf("on the wire: %s", b)
	}
	// The cursor it carries resumes after it.
	res, err := e.Poll(context.Background(), alice, PollParams{Name: "note_added", Cursor: ev.Cursor})
	if err != nil || len(res.Events) != 0 {
		t.Fatalf("poll from the stream's cursor: %+v %v", res, err)
	}
}

func TestStreamHeartbeatCarriesAnAdvancingCursor(t *testing.T) {
	e := newEngine(t, Options{Heartbeat: 30 * time.Millisecond}, noteAdded())
	s, err := e.OpenStream(context.Background(), nil, json.RawMessage(`7`), StreamParams{Name: "note_added", Arguments: json.RawMessage(`{"prefix":"zzz"}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	active := next(t, s).Params.(*ActiveParams)
	emit(t, e, "note_added", note(1, "not for this stream"))
	n := next(t, s)
	hb, ok := n.Params.(*HeartbeatParams)
	if n.Method != NotificationHeartbeat || !ok || hb.Cursor == nil || *hb.Cursor == *active.Cursor {
		t.Fatalf("heartbeat %s %+v (active cursor %v)", n.Method, n.Params, *active.Cursor)
	}
}

func TestStreamResumesFromCursorWithoutGaps(t *testing.T) {
	e := newEngine(t, Options{}, noteAdded())
	ctx := context.Background()
	start, _ := e.Poll(ctx, nil, PollParams{Name: "note_added"})
	for i := range 3 {
		emit(t, e, "note_added", note(i, fmt.Sprint("missed ", i)))
	}
	s, err := e.OpenStream(ctx, nil, json.RawMessage(`1`), StreamParams{Name: "note_added", Cursor: start.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if a := next(t, s).Params.(*ActiveParams); a.Truncated {
		t.Fatal("resume within retention says truncated")
	}
	go func() {
		for i := range 3 {
			e.Emit(ctx, "note_added", Broadcast(), note(10+i, fmt.Sprint("live ", i)))
		}
	}()
	var got []string
	for range 6 {
		got = append(got, title(nextEvent(t, s)))
	}
	want := []string{"missed 0", "missed 1", "missed 2", "live 0", "live 1", "live 2"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// A stream that falls behind reads the log instead of losing events.
func TestSlowStreamCatchesUpFromTheLog(t *testing.T) {
	e := newEngine(t, Options{StreamBuffer: 4}, noteAdded())
	s, err := e.OpenStream(context.Background(), nil, json.RawMessage(`1`), StreamParams{Name: "note_added"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	next(t, s)
	const n = 50
	for i := range n {
		emit(t, e, "note_added", note(i, fmt.Sprint(i)))
	}
	for i := range n {
		if got := title(nextEvent(t, s)); got != fmt.Sprint(i) {
			t.Fatalf("event %d is %q", i, got)
		}
	}
}

func TestStreamWithoutReplayIsToldWhatItMissed(t *testing.T) {
	typ := noteAdded()
	typ.NoReplay = true
	e := newEngine(t, Options{StreamBuffer: 2}, typ)
	s, err := e.OpenStream(context.Background(), nil, json.RawMessage(`1`), StreamParams{Name: "note_added"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if a := next(t, s).Params.(*ActiveParams); a.Cursor != nil {
		t.Fatalf("a type without replay has a cursor: %v", *a.Cursor)
	}
	for i := range 5 {
		emit(t, e, "note_added", note(i, "x"))
	}
	var sawError bool
	for range 3 {
		n := next(t, s)
		if n.Method == NotificationError {
			sawError = true
		}
	}
	if !sawError {
		t.Fatal("no notifications/events/error after events were dropped")
	}
}

func TestStreamsAreBoundedAndCloseTellsEnded(t *testing.T) {
	var ended atomic.Int32
	typ := noteAdded()
	typ.Hooks.Ended = func(_ context.Context, s *Subscription, why EndReason) {
		if why == EndClosed && s.Mode == ModePush {
			ended.Add(1)
		}
	}
	e := newEngine(t, Options{MaxStreams: 10}, typ)
	ctx := context.Background()
	s1, err := e.OpenStream(ctx, alice, json.RawMessage(`1`), StreamParams{Name: "note_added"})
	if err != nil {
		t.Fatal(err)
	}
	re := rpcErr(t, errOf(e.OpenStream(ctx, alice, json.RawMessage(`2`), StreamParams{Name: "note_added"})), SEP3415Codes.ResourceExhausted)
	if d := dataOf(t, re); d["bound"] != "MaxStreams" || d["max"] != 1.0 {
		t.Errorf("refusal %v", d)
	}
	s2, err := e.OpenStream(ctx, bob, json.RawMessage(`1`), StreamParams{Name: "note_added"})
	if err != nil {
		t.Fatalf("bob refused for alice's share: %v", err)
	}
	s1.Close()
	s1.Close()
	if ended.Load() != 1 {
		t.Fatalf("Ended ran %d times", ended.Load())
	}
	s3, err := e.OpenStream(ctx, alice, json.RawMessage(`3`), StreamParams{Name: "note_added"})
	if err != nil {
		t.Fatalf("a closed stream's slot is not given back: %v", err)
	}
	s2.Close()
	s3.Close()
	if _, err := s1.Next(ctx); !errors.Is(err, ErrStreamClosed) {
		t.Errorf("Next on a closed stream: %v", err)
	}
}

// Watch runs while there is a subscription, and only then.
func TestWatchStartsWithTheFirstSubscriptionAndStopsAfterTheLast(t *testing.T) {
	var mu sync.Mutex
	running, starts := false, 0
	typ := noteAdded()
	typ.Hooks.Watch = func(ctx context.Context) error {
		mu.Lock()
		running, starts = true, starts+1
		mu.Unlock()
		<-ctx.Done()
		mu.Lock()
		running = false
		mu.Unlock()
		return nil
	}
	state := func() (bool, int) { mu.Lock(); defer mu.Unlock(); return running, starts }
	e := newEngine(t, Options{PollLease: 100 * time.Millisecond}, typ)
	time.Sleep(60 * time.Millisecond)
	if r, _ := state(); r {
		t.Fatal("Watch runs with no subscription")
	}
	s, err := e.OpenStream(context.Background(), nil, json.RawMessage(`1`), StreamParams{Name: "note_added"})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "Watch to start", func() bool { r, _ := state(); return r })
	if _, err := e.Poll(context.Background(), nil, PollParams{Name: "note_added"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	time.Sleep(40 * time.Millisecond)
	if r, _ := state(); !r {
		t.Fatal("Watch stopped while a poll lease lives")
	}
	eventually(t, "Watch to stop once the poll lease lapsed", func() bool { r, _ := state(); return !r })
	if _, n := state(); n != 1 {
		t.Errorf("Watch started %d times", n)
	}
}
