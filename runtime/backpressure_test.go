package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var numberForm = &Elicitation{Name: "number", Mode: "form", Message: "n?",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)}

// fanOutTool asks numberForm 50 times concurrently; each asker logs before
// and after its question, and the main goroutine reports progress
// meanwhile.
func fanOutTool(n int) Tool {
	return toolOf("fan", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := call.Log(ctx, LevelInfo, "fan", fmt.Sprintf("before %d", i)); err != nil {
					errs <- err
					return
				}
				var a struct{ N int }
				if err := call.Elicit(ctx, numberForm, strconv.Itoa(i), &a); err != nil {
					errs <- err
					return
				}
				if a.N != i {
					errs <- fmt.Errorf("question %d got answer %d", i, a.N)
					return
				}
				errs <- call.Log(ctx, LevelInfo, "fan", fmt.Sprintf("after %d", i))
			}()
		}
		for p := 1; p <= 20; p++ {
			if err := call.Progress(ctx, float64(p), 20, ""); err != nil {
				return nil, err
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				return nil, err
			}
		}
		return ContentResult(call, []Content{Text("done")}), nil
	}, numberForm)
}

// TestSlowReaderManyElicitations: a slow POST reader, 50 concurrent
// elicitations and interleaved notifications on one call, a buffer of 4:
// senders wait for room, nothing is dropped, nothing goes to the open GET
// stream, and each sender's order is kept.
func TestSlowReaderManyElicitations(t *testing.T) {
	const n = 50
	_, ts := legacyServer(t, Options{StreamBuffer: 4, KeepAlive: -1}, fanOutTool(n))
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{}}`)
	if m := jsonBody(t, c.post(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`)); m.Error != nil {
		t.Fatal(m.Error)
	}
	get := events(t, c.do(c.request(http.MethodGet, "")))

	ch := events(t, c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fan","arguments":{},"_meta":{"progressToken":"tok"}}}`))
	pos := map[string]int{} // "before 3", "ask 3", "after 3", "progress 7" -> position
	lastProgress := 0.0
	for i := 0; ; i++ {
		time.Sleep(time.Millisecond) // the slow reader
		ev := next(t, ch)
		m := ev.msg
		switch m.Method {
		case "notifications/message":
			var p struct{ Data string }
			json.Unmarshal(m.Params, &p)
			pos[p.Data] = i
		case "notifications/progress":
			var p struct{ Progress float64 }
			json.Unmarshal(m.Params, &p)
			if p.Progress <= lastProgress {
				t.Fatalf("progress %v after %v", p.Progress, lastProgress)
			}
			lastProgress = p.Progress
		case "elicitation/create":
			var p struct{ Message string }
			json.Unmarshal(m.Params, &p)
			pos["ask "+p.Message] = i
			if code := c.answer(m.ID, `{"action":"accept","content":{"n":`+p.Message+`}}`); code != 202 {
				t.Fatalf("answer %s: %d", p.Message, code)
			}
		case "":
			if got := resultText(t, m); got != "done" {
				t.Fatalf("result %q", got)
			}
			if len(pos) != 3*n || lastProgress != 20 {
				t.Fatalf("got %d messages and progress %v, want %d and 20", len(pos), lastProgress, 3*n)
			}
			for k := range n {
				b, a, q := pos[fmt.Sprintf("before %d", k)], pos[fmt.Sprintf("after %d", k)], pos[fmt.Sprintf("ask %d", k)]
				if !(b < q && q < a) {
					t.Fatalf("question %d out of order: before@%d ask@%d after@%d", k, b, q, a)
				}
			}
			select {
			case ev := <-get:
				if ev.data != "" {
					t.Fatalf("the GET stream carried %s", ev.data)
				}
			default:
			}
			return
		default:
			t.Fatalf("unexpected %s", ev.data)
		}
	}
}

// TestIDsUniqueAcrossConnections: 10,000 server-to-client requests over 100
// concurrent POST streams of one session never repeat an ID. Each stream's
// 100 questions are answered in one batch (2025-03-26 allows batches).
func TestIDsUniqueAcrossConnections(t *testing.T) {
	const conns, per = 100, 100
	tool := toolOf("roots", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		var wg sync.WaitGroup
		for range per {
			wg.Add(1)
			go func() { defer wg.Done(); call.ListRoots(ctx) }()
		}
		wg.Wait()
		return ContentResult(call, nil), nil
	})
	_, ts := legacyServer(t, Options{KeepAlive: -1}, tool)
	c := newClient(t, ts)
	c.initialize(Version20250326, `{"roots":{}}`)
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	errs := make(chan string, conns)
	for k := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.hc.Do(c.request(http.MethodPost, callBody(k, "roots", `{}`)))
			if err != nil {
				errs <- err.Error()
				return
			}
			defer resp.Body.Close()
			ch := events(t, resp)
			var ids []string
			for len(ids) < per {
				ev, ok := <-ch
				if !ok {
					errs <- "stream ended"
					return
				}
				if ev.msg.Method == "roots/list" {
					ids = append(ids, string(ev.msg.ID))
				}
			}
			mu.Lock()
			for _, id := range ids {
				if seen[id] {
					errs <- "repeated ID " + id
				}
				seen[id] = true
			}
			mu.Unlock()
			batch := make([]string, len(ids))
			for i, id := range ids {
				batch[i] = `{"jsonrpc":"2.0","id":` + id + `,"result":{"roots":[]}}`
			}
			ar, err := c.hc.Do(c.request(http.MethodPost, "["+strings.Join(batch, ",")+"]"))
			if err != nil {
				errs <- err.Error()
				return
			}
			ar.Body.Close()
			if ar.StatusCode != 202 {
				errs <- "batch answer status " + ar.Status
			}
			for ev := range ch {
				if ev.msg.Result != nil {
					return
				}
			}
			errs <- "no result"
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if len(seen) != conns*per {
		t.Fatalf("%d IDs, want %d", len(seen), conns*per)
	}
}
