package main

// The deployment end to end: a project made by init with a name and the
// --auth and --redis switches builds offline; the commands of its README,
// pasted into bash, get a token from the development issuer (a real
// process) and get a 401, a 403 insufficient_scope and a successful call;
// and two replicas of the server, real processes on one real Redis, serve
// an elicitation asked on one and answered through the other.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestInitNamedAuthRedisEndToEnd is the "done when": init --name
// tickets --auth --redis, the README's token and calls, two replicas, and
// Ctrl-C during a question (init_shutdown_e2e_test.go).
func TestInitNamedAuthRedisEndToEnd(t *testing.T) {
	redisServer, err := exec.LookPath("redis-server")
	if err != nil && !testing.Short() {
		t.Fatalf("redis-server is needed (apt-get install redis-server; redisstore/test.sh installs it): %v", err)
	}
	e2eEnv(t, "oauth", "redisstore")
	dir := filepath.Join(t.TempDir(), "tickets-server")
	code, stdout, stderr := run(t, "init", "--name", "tickets", "--auth", devIssuerURL, "--redis", dir)
	if code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, f := range []string{"tickets/schemas.go", "tickets/tools.go", "redis.go", "main.go"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	// Before go generate, the build says where to look.
	if out, err := goIn(t, dir, "build", "./..."); err == nil || !strings.Contains(out, "tickets/schemas.go") || !strings.Contains(out, "pattern mcpgen_handler.go: no matching files found") {
		t.Errorf("building before go generate (err %v) does not point at tickets/schemas.go:\n%s", err, out)
	}
	mustGo(t, dir, "generate", "./...")
	mustGo(t, dir, "vet", "./...")
	mustGo(t, dir, "test", "./...")
	mustGo(t, dir, "tool", "mcpgen", "generate", "--check", "-o", "tickets")
	mustGo(t, dir, "build", "-o", "bin/tickets", ".") // the README's build line
	bin := filepath.Join(dir, "bin", "tickets")
	if _, err := os.Stat(filepath.Join(dir, "tickets", "ticketstest", "mcpgen_client.go")); err != nil {
		t.Errorf("no test client ticketstest: %v", err)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("README", func(t *testing.T) { testReadmeAuthWalkthrough(t, dir, string(readme)) })
	t.Run("replicas", func(t *testing.T) { testReplicasOnRedis(t, dir, bin, redisServer) })
	t.Run("Ctrl-C", func(t *testing.T) { testCtrlC(t, dir, bin, redisServer) })
}

// freeAddr is a loopback address no one listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// codeBlocks returns the README's fenced blocks of the given language, in
// order, under the heading that starts with heading, up to the next
// heading of its level or above.
func codeBlocks(readme, heading, lang string) []string {
	i := strings.Index(readme, heading)
	if i < 0 {
		return nil
	}
	section := readme[i:]
	// "### Try" is level 3; "\n# " is not looked for, since a line of a
	// shell block may start so.
	for level := 2; level <= strings.Index(heading, " "); level++ {
		next := "\n" + strings.Repeat("#", level) + " "
		if j := strings.Index(section[len(heading):], next); j >= 0 {
			section = section[:len(heading)+j]
		}
	}
	re := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```")
	var blocks []string
	for _, m := range re.FindAllStringSubmatch(section, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// process is a command of the README run in the background, in its own
// process group (go run starts the server as its child), stopped at the
// end of the test.
func startProcess(t *testing.T, dir, command string, env ...string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", "exec "+command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		if t.Failed() {
			t.Logf("%s:\n%s", command, out.String())
		}
	})
}

// lockedBuffer collects a process's output (written by the exec package's
// copying goroutine, read by the test once the process ended or failed).
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitHTTP polls url until it answers 200, for at most d.
func waitHTTP(t *testing.T, url string, d time.Duration) {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(d)
	for {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer 200 within %v (last: %v)", url, d, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// testReadmeAuthWalkthrough runs the README's development-issuer commands
// as written, on free ports instead of 8090 and 8080.
func testReadmeAuthWalkthrough(t *testing.T, dir, readme string) {
	issuerAddr, serverAddr := freeAddr(t), freeAddr(t)
	readme = strings.NewReplacer("127.0.0.1:8090", issuerAddr, "127.0.0.1:8080", serverAddr).Replace(readme)
	sh := codeBlocks(readme, "### Try it locally", "sh")
	script := codeBlocks(readme, "### Try it locally", "bash")
	if len(sh) != 1 || len(script) != 1 {
		t.Fatalf("the README's development-issuer section has %d sh and %d bash blocks, want 1 each", len(sh), len(script))
	}
	var commands []string
	for _, line := range strings.Split(strings.TrimSpace(sh[0]), "\n") {
		if c, _, _ := strings.Cut(line, "#"); strings.TrimSpace(c) != "" {
			commands = append(commands, strings.TrimSpace(c))
		}
	}
	if len(commands) != 2 || !strings.HasPrefix(commands[0], "go tool mcpgen-dev-issuer") {
		t.Fatalf("the README's two terminals: %q", commands)
	}
	if !strings.Contains(commands[0], "-addr") { // the issuer's default address is 8090
		commands[0] += " -addr " + issuerAddr
	}
	startProcess(t, dir, commands[0])
	waitHTTP(t, "http://"+issuerAddr+"/.well-known/oauth-authorization-server", time.Minute)
	startProcess(t, dir, commands[1])
	waitHTTP(t, "http://"+serverAddr+"/.well-known/oauth-protected-resource/mcp", 2*time.Minute)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script[0])
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's script: %v\n%s", err, out)
	}
	// One answer per call, in order: 401, 200, 403, 200.
	answers := strings.Split(string(out), "HTTP/1.1 ")[1:]
	var statuses []string
	for _, a := range answers {
		statuses = append(statuses, a[:3])
	}
	if strings.Join(statuses, ",") != "401,200,403,200" {
		t.Fatalf("the README's calls answered %v, want 401,200,403,200:\n%s", statuses, out)
	}
	if !strings.Contains(answers[1], "welcome") {
		t.Errorf("list_notes with notes:read:\n%s", answers[1])
	}
	if !strings.Contains(answers[2], `error="insufficient_scope"`) || !strings.Contains(answers[2], "notes:write") {
		t.Errorf("the 403 does not name the missing scope:\n%s", answers[2])
	}
	if !strings.Contains(answers[3], `"title":"t"`) || strings.Contains(answers[3], `"isError":true`) {
		t.Errorf("add_note with notes:write:\n%s", answers[3])
	}
}

// startRedis runs redis-server on a free loopback port with a temporary
// folder, stopped at the end of the test.
func startRedis(t *testing.T, server string) string {
	t.Helper()
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	tmp := t.TempDir()
	cmd := exec.Command(server, "--bind", "127.0.0.1", "--port", port, "--dir", tmp, "--save", "", "--appendonly", "no", "--protected-mode", "yes")
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			fmt.Fprint(c, "PING\r\n")
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "+PONG") {
				return addr
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not start:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// testReplicasOnRedis: two replicas of the built server on one Redis, each
// with its own address and the same MCP_STATE_KEY and -resource; a
// delete_note call on replica A asks its question on A's stream, the answer
// goes to replica B, and the result comes back on A. A replica without a
// state key, or with a short one, refuses to start, saying how to make one.
func testReplicasOnRedis(t *testing.T, dir, bin, redisServer string) {
	redisAddr := startRedis(t, redisServer)
	issuerAddr := freeAddr(t)
	startProcess(t, dir, "go tool mcpgen-dev-issuer -quiet -addr "+issuerAddr)
	issuer := "http://" + issuerAddr
	waitHTTP(t, issuer+"/.well-known/oauth-authorization-server", time.Minute)

	a, b := freeAddr(t), freeAddr(t)
	resource := "http://" + a + "/mcp" // behind a load balancer: the one URL clients dial
	key := "MCP_STATE_KEY=replicas-of-tickets-share-this-key-0123"
	for _, addr := range []string{a, b} {
		startProcess(t, dir, fmt.Sprintf("%s -addr %s -redis %s -issuer %s -resource %s", bin, addr, redisAddr, issuer, resource), key)
		waitHTTP(t, "http://"+addr+"/.well-known/oauth-protected-resource/mcp", 30*time.Second)
	}

	for _, bad := range []string{"", "MCP_STATE_KEY=too-short"} {
		cmd := exec.Command(bin, "-addr", freeAddr(t), "-redis", redisAddr, "-issuer", issuer)
		cmd.Env = append(os.Environ(), "MCP_STATE_KEY=")
		if bad != "" {
			cmd.Env = append(cmd.Env, bad)
		}
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "openssl rand -base64 32") || !strings.Contains(string(out), "MCP_STATE_KEY") {
			t.Errorf("a replica with %q started or did not say how to make a key (err %v):\n%s", bad, err, out)
		}
	}

	tok := devToken(t, issuer, "notes:read notes:write", resource)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	post := func(addr, sid, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok)
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post(a, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"e2e","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	newMessages(t, resp).untilID(t, "1")
	resp.Body.Close()
	if sid == "" {
		t.Fatal("no session")
	}
	resp = post(b, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`) // the session is known on B too
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized on replica B: %s", resp.Status)
	}
	call := post(a, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_note","arguments":{"title":"welcome"}}}`)
	defer call.Body.Close()
	stream := newMessages(t, call)
	q := stream.next(t)
	if q.Method != "elicitation/create" {
		t.Fatalf("replica A: wanted elicitation/create, got %+v", q)
	}
	ans := post(b, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"confirm":true}}}`, q.ID))
	io.Copy(io.Discard, ans.Body)
	ans.Body.Close()
	if ans.StatusCode != http.StatusAccepted {
		t.Fatalf("the answer posted to replica B: %s", ans.Status)
	}
	if r := decodeResult(t, stream.untilID(t, "2")); r.IsError || !strings.Contains(r.text(), `Deleted "welcome"`) {
		t.Errorf("delete_note, asked on A and answered on B: %+v", r)
	}

	// A note added on A is an event that a poll served by B gets, from a
	// cursor B issued: the event log is in Redis.
	rpc := func(addr, id, method, params string) *rpcMessage {
		t.Helper()
		resp := post(addr, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params))
		defer resp.Body.Close()
		m := newMessages(t, resp).untilID(t, id)
		if m.Error != nil {
			t.Fatalf("%s on %s: %s", method, addr, m.Error)
		}
		return m
	}
	var first struct{ Cursor *string }
	if err := json.Unmarshal(rpc(b, "3", "events/poll", `{"name":"note_added"}`).Result, &first); err != nil || first.Cursor == nil {
		t.Fatalf("the first poll on B: %v %+v", err, first)
	}
	rpc(a, "4", "tools/call", `{"name":"add_note","arguments":{"title":"from A","body":"b"}}`)
	cur, _ := json.Marshal(*first.Cursor)
	if got := rpc(b, "5", "events/poll", `{"name":"note_added","cursor":`+string(cur)+`}`).Result; !bytes.Contains(got, []byte(`"title":"from A"`)) {
		t.Errorf("the poll on B after add_note on A: %s", got)
	}
}

// devToken gets a client-credentials token from the development issuer.
func devToken(t *testing.T, issuer, scope, resource string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, issuer+"/token", strings.NewReader(url.Values{
		"grant_type": {"client_credentials"}, "scope": {scope}, "resource": {resource}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("dev-client", "dev-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`"access_token":"([^"]+)"`).FindSubmatch(body)
	if resp.StatusCode != 200 || m == nil {
		t.Fatalf("token: %d %s", resp.StatusCode, body)
	}
	return string(m[1])
}
