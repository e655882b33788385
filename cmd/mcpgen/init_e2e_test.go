package main

// End-to-end tests of the new-user workflow: mcpgen init in a temp folder,
// then the go command and the built server as real processes, over real HTTP
// on loopback and over stdio. They build fresh modules, so they are slow and
// few: one scaffold is shared by the HTTP, stdio and regeneration steps.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// e2eEnv skips slow tests under -short, downloads what the scaffold's
// build needs while the module proxy may still be used (this checkout's
// go.sum, and the go.sum of each optional module named), and runs the test
// in parallel with the other end-to-end tests: each builds fresh modules,
// mostly waiting on the go command, in folders of its own.
//
// The go command runs offline for every test of this binary (TestMain sets
// GOPROXY=off): a scaffold made from this checkout must build without the
// network.
func e2eEnv(t *testing.T, modules ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: builds fresh modules")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go command is needed: %v", err)
	}
	downloadModules(t, append([]string{"."}, modules...)...)
	t.Parallel()
}

// onlineProxy is the GOPROXY the test binary started with, before TestMain
// set it to off; "" for the go command's default.
var onlineProxy string

func TestMain(m *testing.M) {
	onlineProxy = os.Getenv("GOPROXY")
	os.Setenv("GOPROXY", "off")
	os.Setenv("GOWORK", "off")
	os.Exit(m.Run())
}

// downloads holds one download per module folder of this checkout.
var downloads sync.Map // folder -> *download

type download struct {
	once sync.Once
	out  string
	err  error
}

// downloadModules runs go mod download once per test binary in each named
// folder of this checkout ("." for the main module), with the module proxy
// the binary started with. A build needs only some of the modules, but a
// fresh module that requires mcpgen completes its module graph from all of
// them (cobra's mousetrap among them), and a new machine's cache holds only
// what was built so far.
func downloadModules(t *testing.T, folders ...string) {
	t.Helper()
	root := checkoutDir()
	if root == "" {
		t.Fatal("this test runs from a checkout of mcpgen")
	}
	for _, f := range folders {
		v, _ := downloads.LoadOrStore(f, &download{})
		d := v.(*download)
		d.once.Do(func() {
			cmd := exec.Command("go", "mod", "download")
			cmd.Dir = filepath.Join(root, f)
			cmd.Env = append(os.Environ(), "GOPROXY="+onlineProxy) // "" is the go command's default
			out, err := cmd.CombinedOutput()
			d.out, d.err = string(out), err
		})
		if d.err != nil {
			t.Fatalf("go mod download (%s): %v\n%s", f, d.err, d.out)
		}
	}
}

// goIn runs the go command in dir and returns its combined output.
func goIn(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustGo(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := goIn(t, dir, args...)
	if err != nil {
		t.Fatalf("go %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return out
}

// tree maps every file under dir to a digest of its bytes.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = fmt.Sprintf("%x", sha256.Sum256(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func sameTree(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	var diffs []string
	for p, h := range before {
		if after[p] != h {
			diffs = append(diffs, "changed or removed: "+p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			diffs = append(diffs, "added: "+p)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%s:\n%s", what, strings.Join(diffs, "\n"))
	}
}

func TestInitEmptyFolderEndToEnd(t *testing.T) {
	e2eEnv(t)
	dir := filepath.Join(t.TempDir(), "notes-server")

	code, stdout, stderr := run(t, "init", dir)
	if code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	if src := checkoutDir(); !strings.Contains(stdout, "replace "+selfModule+" => "+src) {
		t.Errorf("init did not say it pointed go.mod at the checkout %s:\n%s", src, stdout)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"module notes-server", "tool " + selfModule + "/cmd/mcpgen", "replace " + selfModule + " => "} {
		if !bytes.Contains(gomod, []byte(want)) {
			t.Errorf("go.mod lacks %q:\n%s", want, gomod)
		}
	}

	mustGo(t, dir, "generate", "./...")
	mustGo(t, dir, "build", "./...")
	mustGo(t, dir, "vet", "./...")
	mustGo(t, filepath.Join(dir, "notes"), "tool", "mcpgen", "generate", "--check", "./schemas", "./skills")

	before := tree(t, dir)
	code, stdout, stderr = run(t, "init", dir)
	if code == 0 {
		t.Fatalf("init into a scaffolded folder succeeded:\n%s", stdout)
	}
	for _, f := range []string{"main.go", "notes/tools.go", "notes/schemas/delete_note.json"} {
		if !strings.Contains(stderr, f) {
			t.Errorf("the refusal does not list %s:\n%s", f, stderr)
		}
	}
	sameTree(t, "init run twice changed the project", before, tree(t, dir))

	bin := filepath.Join(t.TempDir(), "notes-server")
	mustGo(t, dir, "build", "-o", bin, ".")

	t.Run("HTTP", func(t *testing.T) { testHTTPElicitation(t, bin) })
	t.Run("stdio", func(t *testing.T) { testStdioElicitation(t, bin) })
	t.Run("events", func(t *testing.T) { testHTTPEvents(t, bin) })
	t.Run("server card", func(t *testing.T) { testServerCard(t, bin, "io.github.OWNER/notes") })
	t.Run("tests", func(t *testing.T) { testScaffoldTests(t, dir) })
	t.Run("regenerate", func(t *testing.T) { testRegenerate(t, dir) })
}

func TestInitExistingModule(t *testing.T) {
	e2eEnv(t)
	root := t.TempDir()
	files := map[string]string{
		"go.mod":    "module example.com/existing\n\ngo 1.25.0\n",
		"main.go":   "package main\n\nfunc main() {}\n",
		"README.md": "# existing\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The module root already has main.go and README.md: refused, untouched.
	before := tree(t, root)
	code, _, stderr := run(t, "init", "--name", "notes", root)
	if code == 0 {
		t.Fatal("init over an existing main.go succeeded")
	}
	for _, f := range []string{"main.go", "README.md"} {
		if !strings.Contains(stderr, f) {
			t.Errorf("the refusal does not list %s:\n%s", f, stderr)
		}
	}
	sameTree(t, "a refused init changed the module", before, tree(t, root))

	// A new folder inside the module: files added, go.mod pins the tool.
	code, stdout, stderr := run(t, "init", "--name", "notes", filepath.Join(root, "mcp"))
	if code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	after := tree(t, root)
	for _, f := range []string{"main.go", "README.md"} {
		if after[f] != before[f] {
			t.Errorf("init changed the module's own %s", f)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "mcp", "go.mod")); err == nil {
		t.Error("init created a nested go.mod inside an existing module")
	}
	gomod, _ := os.ReadFile(filepath.Join(root, "go.mod"))
	if !bytes.Contains(gomod, []byte("tool "+selfModule+"/cmd/mcpgen")) {
		t.Errorf("go.mod does not pin the generator:\n%s", gomod)
	}
	mainGo, _ := os.ReadFile(filepath.Join(root, "mcp", "main.go"))
	if !bytes.Contains(mainGo, []byte(`"example.com/existing/mcp/notes"`)) {
		t.Errorf("the scaffold's main.go does not import example.com/existing/mcp/notes:\n%s", mainGo)
	}
	mustGo(t, root, "generate", "./...")
	mustGo(t, root, "build", "./...")
	mustGo(t, root, "vet", "./...")
	mustGo(t, root, "test", "./...")
	mustGo(t, filepath.Join(root, "mcp", "notes"), "tool", "mcpgen", "generate", "--check", "./schemas", "./skills")
}

// testRegenerate changes the schemas the way a user would and checks what
// the build says at each step.
func testRegenerate(t *testing.T, dir string) {
	notes := filepath.Join(dir, "notes")
	userFiles := func() map[string]string {
		m := tree(t, dir)
		for p := range m {
			if strings.HasPrefix(filepath.Base(p), "mcpgen_") {
				delete(m, p)
			}
		}
		return m
	}

	// Add a tool: the build fails at the handler's assertion, naming the method.
	rename := `{"name": "rename_note", "description": "Renames a note.",
  "inputSchema": {"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}, "required": ["from", "to"]}}`
	if err := os.WriteFile(filepath.Join(notes, "schemas", "rename_note.json"), []byte(rename), 0o644); err != nil {
		t.Fatal(err)
	}
	before := userFiles()
	mustGo(t, dir, "generate", "./...")
	sameTree(t, "go generate touched user files", before, userFiles())
	if _, err := os.Stat(filepath.Join(notes, "mcpgen_rename_note_tool.go")); err != nil {
		t.Fatalf("no generated file for the new tool: %v", err)
	}
	out, err := goIn(t, dir, "build", "./...")
	if err == nil {
		t.Fatal("the build passed although no handler implements rename_note")
	}
	if !strings.Contains(out, "missing method RenameNote") || !strings.Contains(out, "tools.go") {
		t.Errorf("the build error does not name the missing method in tools.go:\n%s", out)
	}

	// Implement it in a file of the user's own: the build passes.
	impl := `package notes

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime"
)

// RenameNote renames a note.
func (t *Tools) RenameNote(ctx context.Context, call RenameNoteCall, in RenameNoteInput) ([]runtime.Content, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.notes[in.To] = t.notes[in.From]
	delete(t.notes, in.From)
	return []runtime.Content{runtime.Text("renamed")}, nil
}
`
	if err := os.WriteFile(filepath.Join(notes, "rename.go"), []byte(impl), 0o644); err != nil {
		t.Fatal(err)
	}
	mustGo(t, dir, "build", "./...")
	mustGo(t, dir, "vet", "./...")

	// Remove the tool: its generated file goes, no user file is touched, and
	// the build names what of the user's code still refers to it.
	if err := os.Remove(filepath.Join(notes, "schemas", "rename_note.json")); err != nil {
		t.Fatal(err)
	}
	before = userFiles()
	mustGo(t, dir, "generate", "./...")
	sameTree(t, "go generate touched user files", before, userFiles())
	if _, err := os.Stat(filepath.Join(notes, "mcpgen_rename_note_tool.go")); !os.IsNotExist(err) {
		t.Errorf("the removed tool's generated file is still there (stat: %v)", err)
	}
	if out, err := goIn(t, dir, "build", "./..."); err == nil || !strings.Contains(out, "rename.go") {
		t.Errorf("after removing the tool, the build should point at rename.go (err %v):\n%s", err, out)
	}
	if err := os.Remove(filepath.Join(notes, "rename.go")); err != nil {
		t.Fatal(err)
	}
	mustGo(t, dir, "build", "./...")
	mustGo(t, notes, "tool", "mcpgen", "generate", "--check", "./schemas", "./skills")
}

// startHTTPServer starts the scaffolded server on a free loopback port and
// returns its endpoint URL. The server is stopped with an interrupt at the end
// of the test, and must exit cleanly.
func startHTTPServer(t *testing.T, bin string, flags ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cmd := exec.CommandContext(ctx, bin, append([]string{"-addr", "127.0.0.1:0"}, flags...)...)
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	logs, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var logBuf bytes.Buffer
	urlc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(logs)
		for sc.Scan() {
			line := sc.Text()
			logBuf.WriteString(line + "\n")
			if u, ok := strings.CutPrefix(line, servingPrefix); ok {
				select {
				case urlc <- strings.Fields(u)[0]:
				default:
				}
			}
		}
		close(urlc)
		done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		defer cancel()
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Errorf("interrupting the server: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("the server did not exit cleanly on interrupt: %v\n%s", err, logBuf.String())
		}
	})
	u, ok := <-urlc
	if !ok {
		t.Fatalf("the server exited without serving:\n%s", logBuf.String())
	}
	return u
}

// mcpHTTP is a minimal Streamable HTTP client (2025-11-25, one session).
type mcpHTTP struct {
	t      *testing.T
	client *http.Client
	url    string
	sid    string
	token  string // a bearer token for every request; "": none
}

// post sends one JSON-RPC message and returns the response.
func (c *mcpHTTP) post(ctx context.Context, body string) *http.Response {
	c.t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatalf("POST %s: %v", body, err)
	}
	return resp
}

// rpcMessage is any JSON-RPC message.
type rpcMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// messages reads JSON-RPC messages from a response, JSON or SSE.
type messages struct {
	resp *http.Response
	sse  *bufio.Reader
	one  *rpcMessage
}

func newMessages(t *testing.T, resp *http.Response) *messages {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %s: %s", resp.Status, b)
	}
	m := &messages{resp: resp}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		m.sse = bufio.NewReader(resp.Body)
		return m
	}
	var msg rpcMessage
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatalf("decoding the JSON response: %v", err)
	}
	m.one = &msg
	return m
}

// next returns the next message; SSE events without data (priming) are skipped.
func (m *messages) next(t *testing.T) *rpcMessage {
	t.Helper()
	if m.sse == nil {
		if m.one == nil {
			t.Fatal("the JSON response holds one message only")
		}
		msg := m.one
		m.one = nil
		return msg
	}
	var data strings.Builder
	for {
		line, err := m.sse.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the SSE stream: %v (pending data %q)", err, data.String())
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if data.Len() == 0 {
				continue
			}
			var msg rpcMessage
			if err := json.Unmarshal([]byte(data.String()), &msg); err != nil {
				t.Fatalf("SSE data is not a JSON-RPC message: %v: %s", err, data.String())
			}
			return &msg
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
}

// untilID reads messages until the response with the given id.
func (m *messages) untilID(t *testing.T, id string) *rpcMessage {
	t.Helper()
	for {
		msg := m.next(t)
		if msg.Method == "" && string(msg.ID) == id {
			return msg
		}
	}
}

func (c *mcpHTTP) call(ctx context.Context, id int, method, params string) *rpcMessage {
	c.t.Helper()
	resp := c.post(ctx, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	defer resp.Body.Close()
	msg := newMessages(c.t, resp).untilID(c.t, fmt.Sprint(id))
	if msg.Error != nil {
		c.t.Fatalf("%s: error %s", method, msg.Error)
	}
	return msg
}

// toolResult is the part of a tools/call result the tests read.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func decodeResult(t *testing.T, msg *rpcMessage) toolResult {
	t.Helper()
	var r toolResult
	if err := json.Unmarshal(msg.Result, &r); err != nil {
		t.Fatalf("decoding the tool result %s: %v", msg.Result, err)
	}
	return r
}

func (r toolResult) text() string {
	var s []string
	for _, c := range r.Content {
		s = append(s, c.Text)
	}
	return strings.Join(s, "\n")
}

func testHTTPElicitation(t *testing.T, bin string) {
	url := startHTTPServer(t, bin)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := &mcpHTTP{t: t, client: &http.Client{Transport: &http.Transport{}}, url: url}
	defer c.client.CloseIdleConnections()

	resp := c.post(ctx, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"e2e","version":"1"}}}`)
	c.sid = resp.Header.Get("Mcp-Session-Id")
	initMsg := newMessages(t, resp).untilID(t, "1")
	resp.Body.Close()
	if c.sid == "" || initMsg.Error != nil {
		t.Fatalf("initialize: session %q, error %s", c.sid, initMsg.Error)
	}
	resp = c.post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %s", resp.Status)
	}

	// A plain tool with typed output.
	r := decodeResult(t, c.call(ctx, 2, "tools/call", `{"name":"add_note","arguments":{"title":"groceries","body":"milk"}}`))
	if r.IsError || !bytes.Contains(r.StructuredContent, []byte(`"replaced":false`)) {
		t.Fatalf("add_note: %+v %s", r, r.StructuredContent)
	}

	// The scaffold's prompt and resource template, with title completion.
	for _, q := range []struct{ method, params, want string }{
		{"prompts/get", `{"name":"summarize_note","arguments":{"title":"groceries","style":"in three words"}}`, `Summarize this note in three words:\n\nmilk`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"summarize_note"},"argument":{"name":"title","value":"gro"}}`, `"values":["groceries"]`},
		{"resources/read", `{"uri":"notes://groceries"}`, `"text":"milk"`},
		{"completion/complete", `{"ref":{"type":"ref/resource","uri":"notes://{title}"},"argument":{"name":"title","value":"w"}}`, `"values":["welcome"]`},
		{"resources/list", `{}`, `"uri":"notes://groceries"`},
		// The scaffold's skill, from notes/skills with no Go written for it.
		{"resources/read", `{"uri":"skill://note-taking/SKILL.md"}`, `"mimeType":"text/markdown","text":"---\nname: note-taking\n`},
		{"skills/list", `{}`, `{"skills":[{"uri":"skill://note-taking/SKILL.md","frontmatter":{"name":"note-taking",`},
	} {
		if got := c.call(ctx, 100, q.method, q.params).Result; !bytes.Contains(got, []byte(q.want)) {
			t.Errorf("%s %s: %s lacks %s", q.method, q.params, got, q.want)
		}
	}

	// The elicitation round trip: elicitation/create arrives on the POST's own
	// SSE stream; the answer goes out on a second POST; the result follows on
	// the first stream.
	elicitRoundTrip := func(id int, title, answer string) toolResult {
		t.Helper()
		resp := c.post(ctx, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"delete_note","arguments":{"title":%q}}}`, id, title))
		defer resp.Body.Close()
		stream := newMessages(t, resp)
		if stream.sse == nil {
			t.Fatalf("delete_note answered %s, not an SSE stream carrying the elicitation", resp.Header.Get("Content-Type"))
		}
		req := stream.next(t)
		if req.Method != "elicitation/create" || len(req.ID) == 0 {
			t.Fatalf("wanted elicitation/create on the call's stream, got %+v", req)
		}
		if !bytes.Contains(req.Params, []byte(title)) || !bytes.Contains(req.Params, []byte(`"confirm"`)) {
			t.Errorf("elicitation/create params: %s", req.Params)
		}
		ans := c.post(ctx, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, answer))
		ans.Body.Close()
		if ans.StatusCode != http.StatusAccepted {
			t.Fatalf("posting the answer: %s", ans.Status)
		}
		return decodeResult(t, stream.untilID(t, fmt.Sprint(id)))
	}
	if r := elicitRoundTrip(3, "welcome", `{"action":"accept","content":{"confirm":true}}`); r.IsError || !strings.Contains(r.text(), `Deleted "welcome"`) {
		t.Errorf("delete_note after accepting: %+v", r)
	}
	if r := elicitRoundTrip(4, "groceries", `{"action":"decline"}`); r.IsError || !strings.Contains(r.text(), "declined") {
		t.Errorf("delete_note after declining: %+v", r)
	}
	r = decodeResult(t, c.call(ctx, 5, "tools/call", `{"name":"list_notes","arguments":{}}`))
	if got := r.text(); strings.Contains(got, "welcome") || !strings.Contains(got, "groceries") {
		t.Errorf("list_notes after deleting welcome and keeping groceries: %q", got)
	}

	// The same handler serves a 2026-07-28 client, sessionless: the question
	// comes back as input_required, the answer rides the retry.
	modern := func(id int, extra string) json.RawMessage {
		t.Helper()
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"delete_note","arguments":{"title":"groceries"},%s"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`, id, extra)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{
			"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "delete_note",
		} {
			req.Header.Set(k, v)
		}
		resp, err := c.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		msg := newMessages(t, resp).untilID(t, fmt.Sprint(id))
		if msg.Error != nil {
			t.Fatalf("2026-07-28 tools/call: error %s", msg.Error)
		}
		return msg.Result
	}
	var round struct {
		ResultType    string `json:"resultType"`
		InputRequests map[string]struct {
			Method string `json:"method"`
		} `json:"inputRequests"`
		RequestState string `json:"requestState"`
	}
	if err := json.Unmarshal(modern(6, ""), &round); err != nil {
		t.Fatal(err)
	}
	if round.ResultType != "input_required" || len(round.InputRequests) != 1 {
		t.Fatalf("2026-07-28 first round: %+v", round)
	}
	var answers []string
	for key, q := range round.InputRequests {
		if q.Method != "elicitation/create" {
			t.Errorf("input request %s is %s", key, q.Method)
		}
		answers = append(answers, fmt.Sprintf(`%q:{"action":"accept","content":{"confirm":true}}`, key))
	}
	retry := fmt.Sprintf(`"inputResponses":{%s},"requestState":%q,`, strings.Join(answers, ","), round.RequestState)
	var final toolResult
	if err := json.Unmarshal(modern(7, retry), &final); err != nil {
		t.Fatal(err)
	}
	if final.IsError || !strings.Contains(final.text(), `Deleted "groceries"`) {
		t.Errorf("2026-07-28 retry: %+v", final)
	}
}

func testStdioElicitation(t *testing.T, bin string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-stdio")
	var logs bytes.Buffer
	cmd.Stderr = &logs
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatalf("writing to the server: %v\n%s", err, logs.String())
		}
	}
	recv := func() *rpcMessage {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("the server's stdout ended: %v\n%s", lines.Err(), logs.String())
		}
		var m rpcMessage
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON-RPC line: %q: %v", lines.Text(), err)
		}
		return &m
	}
	untilID := func(id string) *rpcMessage {
		t.Helper()
		for {
			if m := recv(); m.Method == "" && string(m.ID) == id {
				return m
			}
		}
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"e2e","version":"1"}}}`)
	if m := untilID("1"); m.Error != nil {
		t.Fatalf("initialize: %s", m.Error)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var list struct {
		Tools []struct {
			Name string          `json:"name"`
			Meta json.RawMessage `json:"_meta"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(untilID("2").Result, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if bytes.Contains(tool.Meta, []byte("mcpgen.dev/")) {
			t.Errorf("tools/list advertises mcpgen's own _meta: %s", tool.Meta)
		}
	}
	sort.Strings(names)
	if got := strings.Join(names, ","); got != "add_note,delete_note,list_notes" {
		t.Errorf("tools/list: %s", got)
	}

	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_note","arguments":{"title":"welcome"}}}`)
	var req *rpcMessage
	for req == nil {
		if m := recv(); m.Method == "elicitation/create" {
			req = m
		} else if string(m.ID) == "3" {
			t.Fatalf("delete_note answered before asking: %s %s", m.Result, m.Error)
		}
	}
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"confirm":true}}}`, req.ID))
	r := decodeResult(t, untilID("3"))
	if r.IsError || !strings.Contains(r.text(), `Deleted "welcome"`) {
		t.Errorf("delete_note over stdio: %+v", r)
	}

	// End of input ends the server cleanly.
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("the stdio server did not exit cleanly at end of input: %v\n%s", err, logs.String())
	}
}

// testServerCard reads the scaffold's server card over HTTP: its name,
// the endpoint it was asked at, and a 304 for its ETag.
func testServerCard(t *testing.T, bin, name string) {
	url := startHTTPServer(t, bin)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	get := func(etag string) (*http.Response, []byte) {
		req, err := http.NewRequest(http.MethodGet, url+"/server-card", nil)
		if err != nil {
			t.Fatal(err)
		}
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	resp, body := get("")
	var card struct {
		Name    string
		Remotes []struct{ URL string }
	}
	if err := json.Unmarshal(body, &card); err != nil || resp.StatusCode != 200 || card.Name != name ||
		len(card.Remotes) != 1 || card.Remotes[0].URL != url {
		t.Fatalf("the server card: %d %v: %s", resp.StatusCode, err, body)
	}
	if again, _ := get(resp.Header.Get("ETag")); again.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match with the card's ETag: %d", again.StatusCode)
	}
}
