package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpgen/mcpgen/runtime"
	board "github.com/mcpgen/mcpgen/testdata/golden/mcp-apps/want"
)

// The preview's Go side against real servers: the generated package of the
// mcp-apps golden (tools with pages, nested and flat keys, app-only tools)
// served by the runtime over loopback HTTP. The host page itself runs in
// headless Chromium in apptest/run.sh.

// boardTools answers the golden package's tools.
type boardTools struct{ board.UnimplementedHandler }

func (boardTools) ShowTasks(_ context.Context, _ board.ShowTasksCall, in board.ShowTasksInput) ([]runtime.Content, error) {
	return []runtime.Content{runtime.Text("tasks")}, nil
}

func (boardTools) ReadWeeklyReport(context.Context, board.WeeklyReportResourceCall) (string, error) {
	return "<!DOCTYPE html><p>report</p>", nil
}

// upstream is a server for the preview: the runtime serving the board
// package, behind a handler that records what reached it.
type upstream struct {
	url string
	mu  sync.Mutex
	got []*http.Request // method and headers of every request
}

func (u *upstream) requests() []*http.Request {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.got)
}

func startUpstream(t *testing.T, opts runtime.Options) *upstream {
	t.Helper()
	if opts.Name == "" {
		opts.Name, opts.Version = "board", "1.2.3"
	}
	s := runtime.NewServer(opts)
	if err := board.Register(s, boardTools{}); err != nil {
		t.Fatal(err)
	}
	u := &upstream{}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.got = append(u.got, &http.Request{Method: r.Method, Header: r.Header.Clone()})
		u.mu.Unlock()
		w.Header().Add("Set-Cookie", "sticky=1")
		s.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		s.Close()
		srv.CloseClientConnections()
		srv.Close()
	})
	u.url = srv.URL + "/mcp"
	return u
}

// preview is a running runPreview.
type preview struct {
	page   string // the host page's URL
	stderr *lockedBuffer
	stop   func() error
}

// startPreview runs the preview for url until the test ends (or stop).
func startPreview(t *testing.T, url string, headers ...string) *preview {
	t.Helper()
	p, err := tryPreview(t, url, headers...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// tryPreview runs the preview and returns once it serves, or its error.
func tryPreview(t *testing.T, url string, headers ...string) (*preview, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, in := io.Pipe()
	stderr := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		err := runPreview(ctx, previewOptions{url: url, addr: "127.0.0.1:0", headers: headers}, in, stderr)
		in.CloseWithError(io.EOF)
		done <- err
	}()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		close(lines)
	}()
	var once sync.Once
	var stopErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-done:
			case <-time.After(10 * time.Second):
				stopErr = errors.New("the preview did not stop within 10s of its context's end")
			}
		})
		return stopErr
	}
	t.Cleanup(func() { stop() })
	select {
	case line, ok := <-lines:
		if !ok {
			return nil, stop()
		}
		return &preview{page: line, stderr: stderr, stop: stop}, nil
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("the preview printed no URL within 30s:\n%s", stderr.String())
	}
}

// noLeaks checks, after the test's cleanups, that the test left no
// goroutine behind.
func noLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

func get(t *testing.T, url string, header ...string) (*http.Response, string) {
	t.Helper()
	return do(t, http.MethodGet, url, "", header...)
}

// do sends one request; header holds name, value pairs.
func do(t *testing.T, method, url, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

var mcpHeaders = []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}

func TestPreviewListsAppToolsAndServesTheHostPage(t *testing.T) {
	noLeaks(t)
	up := startUpstream(t, runtime.Options{})
	p := startPreview(t, up.url)
	log := p.stderr.String()
	for _, want := range []string{
		"mcpgen preview: board 1.2.3 at " + up.url + " (protocol 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26; 5 tools; declares io.modelcontextprotocol/ui)",
		"  app tool show_tasks: ui://tasks/board.html\n",
		"  app tool move_task: ui://tasks/board.html (called by the page only)\n",
		"  app tool show_report: ui://tasks/report\n", // the flat key alone
		"  app tool refresh_report: ui://tasks/report (called by the page only)\n",
		"mcpgen preview: open " + p.page + " in a browser",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the preview's log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "count_tasks") {
		t.Errorf("count_tasks has no page, yet is listed:\n%s", log)
	}
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/$`).MatchString(p.page) {
		t.Errorf("the page's URL is %q", p.page)
	}

	resp, body := get(t, p.page)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(body, `<script src="/host.js"></script>`) {
		t.Errorf("GET /: %s %s\n%.300s", resp.Status, resp.Header.Get("Content-Type"), body)
	}
	for k, v := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"} {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("GET /: %s is %q, want %q", k, got, v)
		}
	}
	if resp.Header.Get("Content-Security-Policy") != "" {
		t.Error("the host page has a policy of its own, which the srcdoc page would inherit")
	}
	resp, body = get(t, p.page+"host.js")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") || !strings.HasPrefix(body, "// host.bundle.js") {
		t.Errorf("GET /host.js: %s %s %.80q", resp.Status, resp.Header.Get("Content-Type"), body)
	}
	if resp, body = get(t, p.page+"licenses.txt"); resp.StatusCode != 200 || !strings.Contains(body, "@modelcontextprotocol/ext-apps") {
		t.Errorf("GET /licenses.txt: %s %.200s", resp.Status, body)
	}
	resp, body = get(t, p.page+"preview.json")
	if want := `{"apps":true,"era":"session","name":"board","server":"` + up.url + `","version":"1.2.3","versions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26"]}`; strings.TrimSpace(body) != want {
		t.Errorf("GET /preview.json: %s\n got %s\nwant %s", resp.Status, body, want)
	}
	if resp, _ = get(t, p.page+"nothing"); resp.StatusCode != 404 {
		t.Errorf("GET /nothing: %s", resp.Status)
	}
	if resp, _ = do(t, http.MethodPost, p.page, "{}"); resp.StatusCode != 405 {
		t.Errorf("POST /: %s", resp.Status)
	}
	// The probe used 2026-07-28 (server/discover, then tools/list): no
	// session is left behind on the server.
	for _, r := range up.requests() {
		if r.Header.Get("Mcp-Session-Id") != "" || r.Header.Get("MCP-Protocol-Version") != modernVersion {
			t.Errorf("the probe sent %s with session %q, version %q", r.Method, r.Header.Get("Mcp-Session-Id"), r.Header.Get("MCP-Protocol-Version"))
		}
	}
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(p.stderr.String(), "mcpgen preview: stopped\n") {
		t.Errorf("the preview did not say it stopped:\n%s", p.stderr.String())
	}
}

// TestPreviewForwardsToTheServer: /mcp reaches the server as the
// preview's own request (no browser origin, cookies or referrer; the
// --header values), its answers come back (without cookies), an event
// stream's events arrive as they are written, and an open stream does not
// hold the preview when it stops.
func TestPreviewForwardsToTheServer(t *testing.T) {
	noLeaks(t)
	up := startUpstream(t, runtime.Options{})
	p := startPreview(t, up.url, "X-Preview-Test: yes", "Authorization: Bearer t0ken")
	origin := strings.TrimSuffix(p.page, "/")
	before := len(up.requests())
	resp, body := do(t, http.MethodPost, p.page+"mcp", initialize, append(mcpHeaders, "Origin", origin, "Cookie", "local=secret", "Referer", p.page)...)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" || !strings.Contains(body, `"serverInfo":{"name":"board","version":"1.2.3"}`) {
		t.Fatalf("initialize through the preview: %s session %q\n%s", resp.Status, sid, body)
	}
	if c := resp.Header.Get("Set-Cookie"); c != "" {
		t.Errorf("the server's cookie reached the page: %q", c)
	}
	got := up.requests()[before]
	for _, k := range []string{"Origin", "Cookie", "Referer"} {
		if v := got.Header.Get(k); v != "" {
			t.Errorf("the server got the browser's %s: %q", k, v)
		}
	}
	if got.Header.Get("X-Preview-Test") != "yes" || got.Header.Get("Authorization") != "Bearer t0ken" {
		t.Errorf("the --header values did not reach the server: %v", got.Header)
	}

	// The session's GET stream: its first event must come through before
	// the stream ends.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.page+"mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	stream, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != 200 || !strings.HasPrefix(stream.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET /mcp through the preview: %s %s", stream.Status, stream.Header.Get("Content-Type"))
	}
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stream.Body).ReadString('\n')
		first <- line
	}()
	select {
	case line := <-first:
		if !strings.HasPrefix(line, "id:") && !strings.HasPrefix(line, "data:") && !strings.HasPrefix(line, ":") {
			t.Errorf("the stream's first line: %q", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the GET stream's first event did not come through within 10s: the preview buffers streams")
	}
	start := time.Now()
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > previewStopTimeout+time.Second {
		t.Errorf("with a stream open, the preview took %v to stop", took)
	}
}

func TestPreviewAnswersItsOwnPageOnly(t *testing.T) {
	noLeaks(t)
	up := startUpstream(t, runtime.Options{})
	p := startPreview(t, up.url)
	before := len(up.requests())
	port := p.page[strings.LastIndex(p.page[:len(p.page)-1], ":")+1 : len(p.page)-1]
	for _, c := range []struct {
		path   string
		header []string
		status int
	}{
		{"", []string{"Host", "rebound.example:" + port}, http.StatusMisdirectedRequest},
		{"mcp", append([]string{"Host", "attacker.example"}, mcpHeaders...), http.StatusMisdirectedRequest},
		{"mcp", append([]string{"Origin", "http://attacker.example"}, mcpHeaders...), http.StatusForbidden},
		{"mcp", append([]string{"Origin", "http://127.0.0.1:1"}, mcpHeaders...), http.StatusForbidden},
		{"check", []string{"Origin", "http://attacker.example"}, http.StatusForbidden},
	} {
		method := http.MethodPost
		if c.path == "" {
			method = http.MethodGet
		}
		resp, body := do(t, method, p.page+c.path, initialize, c.header...)
		if resp.StatusCode != c.status {
			t.Errorf("%s /%s %v: %s %s, want %d", method, c.path, c.header[:2], resp.Status, body, c.status)
		}
	}
	if n := len(up.requests()) - before; n != 0 {
		t.Errorf("%d refused requests reached the server", n)
	}
	// localhost is this machine too.
	if resp, _ := get(t, p.page, "Host", "localhost:"+port); resp.StatusCode != 200 {
		t.Errorf("GET / for localhost: %s", resp.Status)
	}
}

func TestPreviewChecksArguments(t *testing.T) {
	p := startPreview(t, startUpstream(t, runtime.Options{}).url)
	schema := `{"type":"object","properties":{"title":{"type":"string"},"count":{"type":"integer","minimum":1},` +
		`"color":{"oneOf":[{"const":"red","title":"Red"},{"const":"blue","title":"Blue"}]},"when":{"type":"string","format":"date"}},` +
		`"required":["title"],"additionalProperties":false}`
	for _, c := range []struct{ args, want string }{
		{`{"title":"a"}`, `{"problems":[]}`},
		{`{"title":"a","count":2,"color":"blue","when":"2026-07-28"}`, `{"problems":[]}`},
		{`{}`, `{"problems":["/: missing properties: 'title'"]}`},
		{`{"title":1,"count":0}`, `{"problems":["/count: must be \u003e= 1 but found 0","/title: expected string, but got number"]}`},
		{`{"title":"a","color":"green"}`, `{"problems":["/color: must be one of red, blue"]}`},
		{`{"title":"a","when":"yesterday"}`, `{"problems":["/when: 'yesterday' is not valid 'date'"]}`},
		{`{"title":"a","extra":1}`, `{"problems":["/: additionalProperties 'extra' not allowed"]}`},
		{`[1]`, `{"problems":["/: the arguments of a tool are a JSON object, such as {}"]}`},
	} {
		_, body := do(t, http.MethodPost, p.page+"check", `{"schema":`+schema+`,"arguments":`+c.args+`}`)
		if strings.TrimSpace(body) != c.want {
			t.Errorf("check %s:\n got %s\nwant %s", c.args, body, c.want)
		}
	}
	// A schema comes from the server: a $ref must not read a file.
	dir := t.TempDir()
	secret := dir + "/secret.json"
	if err := os.WriteFile(secret, []byte(`{"type":"string"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, body := do(t, http.MethodPost, p.page+"check", `{"schema":{"$ref":"file://`+secret+`"},"arguments":{}}`)
	if !strings.Contains(body, `"schemaError"`) || !strings.Contains(body, "is not fetched") {
		t.Errorf("a $ref to a file: %s", body)
	}
	if resp, body := do(t, http.MethodPost, p.page+"check", `{"arguments":{}}`); resp.StatusCode != 400 {
		t.Errorf("check without a schema: %s %s", resp.Status, body)
	}
	huge := `{"schema":{},"arguments":{"x":"` + strings.Repeat("x", previewMaxBody) + `"}}`
	for _, path := range []string{"check", "mcp"} {
		if resp, body := do(t, http.MethodPost, p.page+path, huge, mcpHeaders...); resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("POST /%s of %d MiB: %s %.200s", path, len(huge)>>20, resp.Status, body)
		}
	}
}

// TestPreviewProbe: servers of one era each, and the failures the probe
// turns into what to do.
func TestPreviewProbe(t *testing.T) {
	noLeaks(t)
	t.Run("2026-07-28 only", func(t *testing.T) {
		p := startPreview(t, startUpstream(t, runtime.Options{SupportedProtocolVersions: []string{modernVersion}}).url)
		if _, body := get(t, p.page+"preview.json"); !strings.Contains(body, `"era":"modern"`) || !strings.Contains(body, `"versions":["2026-07-28"]`) {
			t.Errorf("preview.json: %s", body)
		}
	})
	t.Run("sessions only", func(t *testing.T) {
		up := startUpstream(t, runtime.Options{SupportedProtocolVersions: []string{sessionVersion}})
		p := startPreview(t, up.url)
		if _, body := get(t, p.page+"preview.json"); !strings.Contains(body, `"era":"session"`) || !strings.Contains(body, `"name":"board"`) {
			t.Errorf("preview.json: %s", body)
		}
		if !strings.Contains(p.stderr.String(), "app tool show_tasks") {
			t.Errorf("the log lacks show_tasks:\n%s", p.stderr.String())
		}
		var methods []string
		for _, r := range up.requests() {
			methods = append(methods, r.Method)
		}
		if methods[len(methods)-1] != http.MethodDelete {
			t.Errorf("the probe's session was not ended: %v", methods)
		}
	})
	t.Run("a token", func(t *testing.T) {
		resource := "http://127.0.0.1/mcp"
		verify := runtime.TokenVerifierFunc(func(_ context.Context, token string) (*runtime.Principal, error) {
			if token != "good" {
				return nil, runtime.ErrInvalidToken
			}
			return &runtime.Principal{Issuer: "https://issuer.example", Subject: "u", Scopes: []string{"tasks:write"}, Expiry: time.Now().Add(time.Hour)}, nil
		})
		up := startUpstream(t, runtime.Options{Auth: &runtime.Auth{Resource: resource, AuthorizationServers: []string{"https://issuer.example"}, Verifier: verify}})
		_, err := tryPreview(t, up.url)
		if err == nil || !strings.Contains(err.Error(), "wants an access token (HTTP 401") || !strings.Contains(err.Error(), "--header 'Authorization: Bearer TOKEN'") {
			t.Errorf("without a token: %v", err)
		}
		p := startPreview(t, up.url, "Authorization: Bearer good")
		// The page sends no token; the preview adds it.
		if resp, body := do(t, http.MethodPost, p.page+"mcp", initialize, mcpHeaders...); resp.StatusCode != 200 {
			t.Errorf("initialize through the preview with --header: %s %s", resp.Status, body)
		}
	})
	t.Run("failures", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := "http://" + ln.Addr().String() + "/mcp"
		ln.Close()
		up := startUpstream(t, runtime.Options{})
		for _, c := range []struct{ url, want string }{
			{closed, "nothing answers at " + closed},
			{strings.TrimSuffix(up.url, "/mcp") + "/elsewhere", "is not an MCP endpoint (HTTP 404); an mcpgen server serves it at /mcp"},
		} {
			if _, err := tryPreview(t, c.url); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want %q", c.url, err, c.want)
			}
		}
	})
}

// TestPreviewServerGone: a server that stops after the start gets the
// page a 502 that says so, and a line in the log.
func TestPreviewServerGone(t *testing.T) {
	s := runtime.NewServer(runtime.Options{Name: "board", Version: "1"})
	if err := board.Register(s, boardTools{}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	p := startPreview(t, srv.URL)
	srv.Close()
	s.Close()
	resp, body := do(t, http.MethodPost, p.page+"mcp", initialize, mcpHeaders...)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "mcpgen preview: the server at "+srv.URL+" did not answer") {
		t.Errorf("POST /mcp to a stopped server: %s %s", resp.Status, body)
	}
	if !strings.Contains(p.stderr.String(), "mcpgen preview: POST "+srv.URL) {
		t.Errorf("the log does not say the server did not answer:\n%s", p.stderr.String())
	}
}

func TestPreviewUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"preview"}, "preview takes the URL of the server's MCP endpoint"},
		{[]string{"preview", "127.0.0.1:8080/mcp"}, "want the http:// or https:// URL of the server's MCP endpoint"},
		{[]string{"preview", "ftp://127.0.0.1/mcp"}, "want the http:// or https:// URL"},
		{[]string{"preview", "http://me:pw@127.0.0.1:8080/mcp"}, "put credentials in a --header, not in the URL"},
		{[]string{"preview", "--addr", "0.0.0.0:0", "http://127.0.0.1:8080/mcp"}, `--addr "0.0.0.0:0" is not a loopback address`},
		{[]string{"preview", "-addr", ":8091", "http://127.0.0.1:8080/mcp"}, `--addr ":8091" is not a loopback address`},
		{[]string{"preview", "--addr", "192.0.2.1:8091", "http://127.0.0.1:8080/mcp"}, "is not a loopback address"},
		{[]string{"preview", "-H", "Bearer-s3cret-token", "http://127.0.0.1:8080/mcp"}, `--header 1 ("Bearer-s3cret-token"...): want "Name: value"`},
		{[]string{"preview", "-H", "Mcp-Session-Id: x", "http://127.0.0.1:8080/mcp"}, "--header Mcp-Session-Id: the preview and the page set it themselves"},
	} {
		code, stdout, stderr := run(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("mcpgen %s: exit %d, stderr %q, want 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	if _, _, stderr := run(t, "preview", "-H", "Authorization Bearer s3cret-token-value", "http://127.0.0.1:8080/mcp"); strings.Contains(stderr, "s3cret") {
		t.Errorf("a malformed --header's value is printed: %s", stderr)
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0", "localhost:8091"} {
		if !loopbackHost(addr) {
			t.Errorf("%s is loopback", addr)
		}
	}
}

// TestHostBundleIsBuiltFromHostJS: the embedded bundle names the SHA-256
// of the host.js it was built from (apptest/bundle.mjs checks the whole
// bundle where npm is at hand).
func TestHostBundleIsBuiltFromHostJS(t *testing.T) {
	src, err := os.ReadFile("apphost/host.js")
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := apphost.ReadFile("apphost/host.bundle.js")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(src)
	first, _, _ := strings.Cut(string(bundle), "\n")
	if !strings.Contains(first, "(sha256 "+hex.EncodeToString(sum[:])+")") {
		t.Errorf("apphost/host.bundle.js was not built from this apphost/host.js: run node apptest/bundle.mjs (after npm ci in apptest)\nits first line: %.300s", first)
	}
}
