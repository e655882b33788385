package main

// Ctrl-C end to end: the server of a project made by init, a real process,
// stopped by a signal while a tool call waits for the user's answer to its
// question. It must end the question at once (the client hears
// notifications/cancelled for it), answer the call, exit 0 within 2 s and
// say in its log what the shutdown did; over HTTP every SSE event of the
// call's stream has its own ID (a reused one breaks Last-Event-ID
// resumption).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// interruptBound is how soon after the signal the server must have exited.
const interruptBound = 2 * time.Second

// sseEvent is one event of a stream, as sent.
type sseEvent struct {
	id   string
	data string
}

// readSSE reads the events of an SSE stream until it ends, each sent on
// the returned channel as it arrives.
func readSSE(body io.Reader) <-chan sseEvent {
	events := make(chan sseEvent, 64)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var ev sseEvent
		var data []string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.id != "" || len(data) > 0 {
					ev.data = strings.Join(data, "\n")
					events <- ev
				}
				ev, data = sseEvent{}, nil
			case strings.HasPrefix(line, "id:"):
				ev.id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
			case strings.HasPrefix(line, "data:"):
				data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			}
		}
	}()
	return events
}

// startServer starts bin with args (and env), waits until it serves, and
// returns it with its log; exited is closed once it has exited.
func startServer(t *testing.T, bin string, env []string, args ...string) (cmd *exec.Cmd, logs *lockedBuffer, exited chan struct{}) {
	t.Helper()
	cmd = exec.Command(bin, args...)
	cmd.Env = append(cmd.Environ(), env...)
	logs = &lockedBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited = make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("%s %s:\n%s", bin, strings.Join(args, " "), logs.String())
		}
	})
	return cmd, logs, exited
}

// waitExit waits for an interrupted server to exit within interruptBound
// of sent, and checks that it exited 0.
func waitExit(t *testing.T, cmd *exec.Cmd, exited chan struct{}, sent time.Time, logs *lockedBuffer) {
	t.Helper()
	select {
	case <-exited:
	case <-time.After(interruptBound + 10*time.Second):
		t.Fatalf("the server had not exited %v after the signal:\n%s", time.Since(sent).Round(time.Millisecond), logs.String())
	}
	if elapsed := time.Since(sent); elapsed > interruptBound {
		t.Errorf("the server exited %v after the signal, want within %v", elapsed.Round(time.Millisecond), interruptBound)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("the server exited %d after the signal, want 0:\n%s", code, logs.String())
	}
}

// checkShutdownLog: the log says what the shutdown did.
func checkShutdownLog(t *testing.T, logs string) {
	t.Helper()
	for _, want := range []string{"shutting down", `"questions to clients ended"=1`, "shut down"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the server's log does not say %q of its shutdown:\n%s", want, logs)
		}
	}
	var lines []string
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, "shut") {
			lines = append(lines, l)
		}
	}
	t.Logf("the shutdown's log:\n%s", strings.Join(lines, "\n"))
}

// testCtrlC interrupts the built server of TestInitNamedAuthRedisEndToEnd
// (tickets: --auth and --redis) during a question: over HTTP with its
// sessions in memory and in Redis, and over stdio.
func testCtrlC(t *testing.T, dir, bin, redisServer string) {
	issuerAddr := freeAddr(t)
	startProcess(t, dir, "go tool mcpgen-dev-issuer -quiet -addr "+issuerAddr)
	issuer := "http://" + issuerAddr
	waitHTTP(t, issuer+"/.well-known/oauth-authorization-server", time.Minute)
	t.Run("HTTP", func(t *testing.T) {
		addr := freeAddr(t)
		token := devToken(t, issuer, "notes:read notes:write", "http://"+addr+"/mcp")
		testInterruptHTTP(t, bin, addr, token, nil, "-issuer", issuer)
	})
	t.Run("HTTP on Redis", func(t *testing.T) {
		addr := freeAddr(t)
		token := devToken(t, issuer, "notes:read notes:write", "http://"+addr+"/mcp")
		testInterruptHTTP(t, bin, addr, token, []string{"MCP_STATE_KEY=interrupted-tickets-share-this-key-01"},
			"-issuer", issuer, "-redis", startRedis(t, redisServer))
	})
	t.Run("stdio", func(t *testing.T) { testInterruptStdio(t, bin) })
}

// testInterruptHTTP: SIGINT while delete_note waits for the answer on its
// POST stream. token (may be empty) authorizes the requests.
func testInterruptHTTP(t *testing.T, bin, addr, token string, env []string, args ...string) {
	cmd, logs, exited := startServer(t, bin, env, append([]string{"-addr", addr}, args...)...)
	url := "http://" + addr + "/mcp"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	sid := ""
	post := func(body string) *http.Response {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("POST %.60s: %v\n%s", body, err, logs.String())
		}
		return resp
	}
	waitListening(t, url, exited, logs)

	resp := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"e2e","version":"1"}}}`)
	sid = resp.Header.Get("Mcp-Session-Id")
	newMessages(t, resp).untilID(t, "1")
	resp.Body.Close()
	if sid == "" {
		t.Fatal("initialize made no session")
	}
	resp = post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()

	call := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_note","arguments":{"title":"welcome"}}}`)
	defer call.Body.Close()
	if !strings.HasPrefix(call.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("delete_note answered %s %s, not the SSE stream that carries its question", call.Status, call.Header.Get("Content-Type"))
	}
	events := readSSE(call.Body)
	var stream []sseEvent
	next := func() (sseEvent, bool) {
		t.Helper()
		select {
		case ev, ok := <-events:
			if ok {
				stream = append(stream, ev)
			}
			return ev, ok
		case <-time.After(30 * time.Second):
			t.Fatalf("no event within 30s; the stream so far: %+v\n%s", stream, logs.String())
			return sseEvent{}, false
		}
	}
	var question rpcMessage
	for question.Method != "elicitation/create" {
		ev, ok := next()
		if !ok {
			t.Fatalf("the stream ended before the question: %+v", stream)
		}
		if ev.data != "" {
			question = rpcMessage{}
			if err := json.Unmarshal([]byte(ev.data), &question); err != nil {
				t.Fatalf("event %q: %v", ev.data, err)
			}
		}
	}

	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// After the question: its cancellation, then the call's answer, then
	// the end of the stream.
	var after []rpcMessage
	for {
		ev, ok := next()
		if !ok {
			break
		}
		if ev.data == "" {
			continue
		}
		var m rpcMessage
		if err := json.Unmarshal([]byte(ev.data), &m); err != nil {
			t.Fatalf("event %q: %v", ev.data, err)
		}
		after = append(after, m)
	}
	waitExit(t, cmd, exited, sent, logs)
	checkAfterQuestion(t, question, after)
	seen := map[string]bool{}
	for _, ev := range stream {
		if ev.id == "" {
			continue
		}
		if seen[ev.id] {
			t.Errorf("event ID %q is used twice on the stream: %+v", ev.id, stream)
		}
		seen[ev.id] = true
	}
	checkShutdownLog(t, logs.String())
}

// checkAfterQuestion: what follows the question is notifications/cancelled
// naming it, then the answer to the call (id 2 over HTTP, 3 over stdio,
// callID), and nothing else.
func checkAfterQuestion(t *testing.T, question rpcMessage, after []rpcMessage, callID ...string) {
	t.Helper()
	id := "2"
	if len(callID) > 0 {
		id = callID[0]
	}
	var got []string
	for _, m := range after {
		got = append(got, fmt.Sprintf("%s%s %s%s%s", m.Method, m.ID, m.Params, m.Result, m.Error))
	}
	if len(after) != 2 {
		t.Fatalf("after the question %s came %d messages, want notifications/cancelled and the call's answer:\n%s", question.ID, len(after), strings.Join(got, "\n"))
	}
	var cancelled struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}
	if after[0].Method != "notifications/cancelled" || json.Unmarshal(after[0].Params, &cancelled) != nil || !bytes.Equal(cancelled.RequestID, question.ID) {
		t.Errorf("the first message after the question %s is not notifications/cancelled for it: %s", question.ID, got[0])
	}
	if after[1].Method != "" || string(after[1].ID) != id || (after[1].Result == nil && after[1].Error == nil) {
		t.Errorf("the second message after the question is not the answer to call %s: %s", id, got[1])
	}
	t.Logf("after the signal: %s", strings.Join(got, " | "))
}

// waitListening waits until the server accepts connections on url.
func waitListening(t *testing.T, url string, exited chan struct{}, logs *lockedBuffer) {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	for deadline := time.Now().Add(30 * time.Second); ; {
		if resp, err := client.Get(url); err == nil {
			resp.Body.Close()
			return
		}
		select {
		case <-exited:
			t.Fatalf("the server exited before serving:\n%s", logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not listen at %s within 30s:\n%s", url, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// testInterruptStdio: SIGTERM while delete_note waits for the answer over
// stdio.
func testInterruptStdio(t *testing.T, bin string) {
	cmd := exec.Command(bin, "-stdio")
	logs := &lockedBuffer{}
	cmd.Stderr = logs
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		cmd.Wait() // after stdout is read to its end
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("%s -stdio:\n%s", bin, logs.String())
		}
	})
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatalf("writing to the server: %v", err)
		}
	}
	recv := func() (rpcMessage, bool) {
		t.Helper()
		select {
		case line, ok := <-lines:
			var m rpcMessage
			if ok && json.Unmarshal([]byte(line), &m) != nil {
				t.Fatalf("not a JSON-RPC line: %q", line)
			}
			return m, ok
		case <-time.After(30 * time.Second):
			t.Fatalf("no message within 30s:\n%s", logs.String())
			return rpcMessage{}, false
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"e2e","version":"1"}}}`)
	if m, _ := recv(); string(m.ID) != "1" || m.Error != nil {
		t.Fatalf("initialize: %+v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_note","arguments":{"title":"welcome"}}}`)
	var question rpcMessage
	for question.Method != "elicitation/create" {
		m, ok := recv()
		if !ok {
			t.Fatal("stdout ended before the question")
		}
		question = m
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var after []rpcMessage
	for {
		m, ok := recv()
		if !ok {
			break
		}
		after = append(after, m)
	}
	select {
	case <-exited:
	case <-time.After(interruptBound + 10*time.Second):
		t.Fatal("the stdio server did not exit")
	}
	if elapsed := time.Since(sent); elapsed > interruptBound {
		t.Errorf("the stdio server exited %v after SIGTERM, want within %v", elapsed.Round(time.Millisecond), interruptBound)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("the stdio server exited %d after SIGTERM, want 0:\n%s", code, logs.String())
	}
	checkAfterQuestion(t, question, after, "3")
	checkShutdownLog(t, logs.String())
}
