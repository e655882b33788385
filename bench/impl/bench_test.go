package impl_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/bench/driver"
	"github.com/mcpgen/mcpgen/bench/impl"
)

// The in-process benchmarks call each implementation's handler directly (no
// sockets), so allocs/op and B/op count the server's work on one call plus a
// fixed harness cost (the request, the recorder), which the "harness" entry
// measures on a handler that only reads the body.

func newHandler(b *testing.B, name string) (impl.Impl, http.Handler) {
	b.Helper()
	if name == "harness" {
		return impl.Impl{Name: name, Modern: true}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
		})
	}
	im, err := impl.Get(name)
	if err != nil {
		b.Fatal(err)
	}
	h, err := im.New()
	if err != nil {
		b.Fatal(err)
	}
	return im, h
}

func benchNames() []string { return append(impl.Names(), "harness") }

func post(h http.Handler, body []byte, set func(http.Header)) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	set(req.Header)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// initialize opens a legacy session on h and returns the headers its
// requests carry.
func initialize(b *testing.B, h http.Handler, elicit bool) func(http.Header) {
	b.Helper()
	caps := `{}`
	if elicit {
		caps = `{"elicitation":{"form":{}}}`
	}
	rec := post(h, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+driver.LegacyVersion+
		`","capabilities":`+caps+`,"clientInfo":{"name":"bench","version":"0"}}}`), func(http.Header) {})
	if rec.Code != http.StatusOK {
		b.Fatalf("initialize: HTTP %d: %s", rec.Code, rec.Body)
	}
	sid := rec.Header().Get("Mcp-Session-Id")
	set := func(h http.Header) {
		if sid != "" {
			h.Set("Mcp-Session-Id", sid)
		}
		h.Set("Mcp-Protocol-Version", driver.LegacyVersion)
	}
	if rec := post(h, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), set); rec.Code >= 300 {
		b.Fatalf("notifications/initialized: HTTP %d: %s", rec.Code, rec.Body)
	}
	return set
}

// checkAdd reads the add result out of a recorded response.
func checkAdd(b *testing.B, rec *httptest.ResponseRecorder, id, want int64) {
	b.Helper()
	res, err := driver.ReadResponse(rec.Result(), strconv.AppendInt(nil, id, 10), nil)
	if err == nil {
		err = driver.CheckSum(res, want)
	}
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkW1 is tools/call add in a legacy session.
func BenchmarkW1(b *testing.B) {
	for _, name := range benchNames() {
		b.Run("impl="+name, func(b *testing.B) {
			_, h := newHandler(b, name)
			set := func(http.Header) {}
			if name != "harness" {
				set = initialize(b, h, false)
			}
			body := driver.AddCallBody(1, 40, false)
			if name != "harness" {
				checkAdd(b, post(h, body, set), 1, 42)
			}
			b.ReportAllocs()
			for b.Loop() {
				if rec := post(h, body, set); rec.Code != http.StatusOK {
					b.Fatalf("HTTP %d", rec.Code)
				}
			}
		})
	}
}

// BenchmarkW2 is tools/call add as a stateless 2026-07-28 request.
func BenchmarkW2(b *testing.B) {
	for _, name := range benchNames() {
		b.Run("impl="+name, func(b *testing.B) {
			im, h := newHandler(b, name)
			if !im.Modern {
				b.Skip("no 2026-07-28 support")
			}
			set := func(h http.Header) {
				h.Set("Mcp-Protocol-Version", driver.ModernVersion)
				h.Set("Mcp-Method", "tools/call")
				h.Set("Mcp-Name", "add")
			}
			body := driver.AddCallBody(1, 40, true)
			if name != "harness" {
				checkAdd(b, post(h, body, set), 1, 42)
			}
			b.ReportAllocs()
			for b.Loop() {
				if rec := post(h, body, set); rec.Code != http.StatusOK {
					b.Fatalf("HTTP %d", rec.Code)
				}
			}
		})
	}
}

// streamWriter is a ResponseWriter whose body is read as it is written, so a
// benchmark can answer the elicitation that the handler is waiting on.
type streamWriter struct {
	header http.Header
	once   sync.Once
	ready  chan struct{} // closed at WriteHeader
	code   int
	pw     *io.PipeWriter
}

func (w *streamWriter) Header() http.Header { return w.header }
func (w *streamWriter) WriteHeader(code int) {
	w.once.Do(func() { w.code = code; close(w.ready) })
}
func (w *streamWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.pw.Write(p)
}
func (w *streamWriter) Flush() {}

// BenchmarkW3 is confirm's full elicitation round trip: the tools/call, the
// elicitation/create read off its stream, the answer in a second POST, the
// result on the first stream.
func BenchmarkW3(b *testing.B) {
	for _, name := range impl.Names() {
		b.Run("impl="+name, func(b *testing.B) {
			im, h := newHandler(b, name)
			if !im.Elicit {
				b.Skip("no elicitation")
			}
			set := initialize(b, h, true)
			var id int64
			round := func() {
				id++
				body := []byte(`{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) +
					`,"method":"tools/call","params":{"name":"confirm","arguments":{"item":"bench"}}}`)
				req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				set(req.Header)
				pr, pw := io.Pipe()
				w := &streamWriter{header: http.Header{}, ready: make(chan struct{}), pw: pw}
				done := make(chan struct{})
				go func() {
					defer close(done)
					h.ServeHTTP(w, req)
					w.WriteHeader(http.StatusOK)
					pw.Close()
				}()
				<-w.ready
				resp := &http.Response{StatusCode: w.code, Header: w.header, Body: pr}
				res, err := driver.ReadResponse(resp, strconv.AppendInt(nil, id, 10), func(m *driver.Message) error {
					answer := append(append([]byte(`{"jsonrpc":"2.0","id":`), m.ID...), `,"result":{"action":"accept","content":{"confirm":true}}}`...)
					if rec := post(h, answer, set); rec.Code >= 300 {
						b.Fatalf("answer: HTTP %d", rec.Code)
					}
					return nil
				})
				<-done
				if err != nil {
					b.Fatal(err)
				}
				var tr struct {
					Content []struct{ Text string } `json:"content"`
				}
				if err := json.Unmarshal(res, &tr); err != nil || len(tr.Content) == 0 || tr.Content[0].Text != "confirmed" {
					b.Fatalf("result %s", res)
				}
			}
			round()
			b.ReportAllocs()
			for b.Loop() {
				round()
			}
		})
	}
}
