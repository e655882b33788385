package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// stdioPeer drives ServeStdio over pipes.
type stdioPeer struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func startStdio(t *testing.T, s *Server) *stdioPeer {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPeer{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		err := s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		p.done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			t.Error("ServeStdio did not return after EOF")
		}
	})
	return p
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

func (p *stdioPeer) recv() rpc {
	p.t.Helper()
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		p.t.Fatal(err)
	}
	var m rpc
	if err := json.Unmarshal(line, &m); err != nil {
		p.t.Fatalf("%q: %v", line, err)
	}
	return m
}

// TestStdioElicitationRoundTrip: initialize, then a tools/call whose
// elicitation is answered on stdin while the call waits.
func TestStdioElicitationRoundTrip(t *testing.T) {
	noLeaks(t)
	s := NewServer(Options{})
	if err := s.AddTool(confirmTool()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p := startStdio(t, s)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"x","version":"1"}}}`)
	if m := p.recv(); string(m.ID) != "1" || m.Error != nil {
		t.Fatalf("initialize: %+v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(callBody(2, "confirm", `{}`))
	el := p.recv()
	if el.Method != "elicitation/create" {
		t.Fatalf("got %+v", el)
	}
	p.send(`{"jsonrpc":"2.0","id":` + string(el.ID) + `,"result":{"action":"accept","content":{"confirm":true,"note":"stdio"}}}`)
	if got := resultText(t, p.recv()); got != "confirm=true note=stdio" {
		t.Fatalf("result %q", got)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if m := p.recv(); string(m.Result) != "{}" {
		t.Fatalf("ping: %+v", m)
	}
	p.send(`{not json`)
	if m := p.recv(); m.Error == nil || m.Error.Code != CodeParseError {
		t.Fatalf("parse error: %+v", m)
	}
}

// TestStdioClientCancel: notifications/cancelled on stdin ends the call's
// context; the elicitation is cancelled and no result is written.
func TestStdioClientCancel(t *testing.T) {
	noLeaks(t)
	s := NewServer(Options{})
	if err := s.AddTool(confirmTool()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p := startStdio(t, s)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"x","version":"1"}}}`)
	p.recv()
	p.send(callBody(2, "confirm", `{}`))
	el := p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	note := p.recv()
	if note.Method != "notifications/cancelled" {
		t.Fatalf("got %+v", note)
	}
	var np struct{ RequestID json.RawMessage }
	json.Unmarshal(note.Params, &np)
	if string(np.RequestID) != string(el.ID) {
		t.Fatalf("cancelled %s, want %s", np.RequestID, el.ID)
	}
	// The next thing on stdout answers the next request, not the cancelled one.
	p.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if m := p.recv(); string(m.ID) != "3" {
		t.Fatalf("got %+v after cancellation", m)
	}
}

// TestStdioEOFDrains: at EOF a running call is not cancelled: it finishes
// and its response is written before ServeStdio returns.
func TestStdioEOFDrains(t *testing.T) {
	noLeaks(t)
	started, release := make(chan struct{}), make(chan struct{})
	slow := toolOf("slow", `{"type":"object"}`, func(ctx context.Context, call *Call, _ json.RawMessage) (*ToolResult, error) {
		close(started)
		select {
		case <-release:
			return ContentResult(call, []Content{Text("finished")}), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	s := NewServer(Options{})
	if err := s.AddTool(slow); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	inR, inW := io.Pipe()
	var out strings.Builder
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), inR, &out) }()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`+"\n"+callBody(2, "slow", `{}`)+"\n")
	<-started
	inW.Close()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"text":"finished"`) {
		t.Fatalf("output %s", out.String())
	}
}
