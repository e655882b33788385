package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/templates"
)

// projectLine extracts the scaffold's folder from the demo's "Its project: DIR (...)" line.
func projectLine(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "Its project: "); ok {
			return strings.Fields(rest)[0]
		}
	}
	return ""
}

// TestDemoCurlWalkthrough runs `mcpgen demo` as the README says, pastes the
// curl script it prints into bash (the full elicitation round trip), then
// stops the demo with Ctrl-C and checks that it cleaned up.
func TestDemoCurlWalkthrough(t *testing.T) {
	e2eEnv(t)
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the README's walkthrough needs %s: %v", tool, err)
		}
	}
	bin := filepath.Join(t.TempDir(), "mcpgen")
	mustGo(t, ".", "build", "-o", bin, ".")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	demo := exec.CommandContext(ctx, bin, "demo")
	var logs bytes.Buffer
	demo.Stderr = &logs
	out, err := demo.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := demo.Start(); err != nil {
		t.Fatal(err)
	}
	// The script is everything after its header, to the end of what the
	// demo prints while it serves: what a user pastes when they select to
	// the end of the output.
	stuck := time.AfterFunc(3*time.Minute, func() { demo.Process.Kill() }) // the end line never came
	lines := bufio.NewScanner(out)
	var printed, script strings.Builder
	inScript := false
	for lines.Scan() {
		line := lines.Text()
		printed.WriteString(line + "\n")
		if inScript {
			script.WriteString(line + "\n")
		}
		if strings.Contains(line, "Call it with curl; paste into bash") {
			inScript = true
		}
		if line == scriptEnd {
			break
		}
	}
	stuck.Stop()
	if script.Len() == 0 || !strings.HasSuffix(script.String(), scriptEnd+"\n") {
		demo.Process.Kill()
		demo.Wait()
		t.Fatalf("the demo printed no curl walkthrough ending with %q:\n%s\nstderr:\n%s", scriptEnd, printed.String(), logs.String())
	}
	project := projectLine(printed.String())
	if _, err := os.Stat(filepath.Join(project, "go.mod")); err != nil {
		t.Errorf("the demo's project %q: %v", project, err)
	}

	bashCtx, bashCancel := context.WithTimeout(ctx, 2*time.Minute)
	defer bashCancel()
	bash := exec.CommandContext(bashCtx, "bash", "-c", script.String())
	bash.WaitDelay = 5 * time.Second // the background curl of the script holds the pipes
	got, err := bash.CombinedOutput()
	if err != nil {
		t.Errorf("the curl walkthrough failed: %v\n%s", err, got)
	}
	if bytes.Contains(got, []byte("command not found")) {
		t.Errorf("pasting the demo's output after the script's header runs something that is not the script:\n%s", got)
	}
	for _, want := range []string{`"replaced":false`, `"method":"elicitation/create"`, `Deleted \"welcome\"`, `"resultType":"input_required"`, `Deleted \"groceries\"`} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("the walkthrough's output lacks %s:\n%s", want, got)
		}
	}

	// Pasted a second time against the same demo, it runs through again
	// (step 3 saves the note it deletes first) and every wait is bounded.
	again := exec.CommandContext(bashCtx, "bash", "-c", script.String())
	again.WaitDelay = 5 * time.Second
	got, err = again.CombinedOutput()
	if err != nil {
		t.Errorf("the curl walkthrough failed the second time: %v\n%s", err, got)
	}
	for _, want := range []string{`"method":"elicitation/create"`, `Deleted \"welcome\"`, `Deleted \"groceries\"`} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("the second walkthrough's output lacks %s:\n%s", want, got)
		}
	}

	if err := demo.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
		printed.WriteString(lines.Text() + "\n")
	}
	if err := demo.Wait(); err != nil {
		t.Errorf("the demo did not exit cleanly on Ctrl-C: %v\nstdout:\n%s\nstderr:\n%s", err, printed.String(), logs.String())
	}
	if _, err := os.Stat(project); !os.IsNotExist(err) {
		t.Errorf("the demo left its project behind: %s (stat: %v)", project, err)
	}
}

// TestDemoExit runs the demo in-process with --exit, the mode for scripts:
// it must build, start, answer, print, stop and clean up on its own.
func TestDemoExit(t *testing.T) {
	e2eEnv(t)
	code, stdout, stderr := run(t, "demo", "--exit")
	if code != 0 {
		t.Fatalf("demo --exit: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"The demo MCP server is running at http://127.0.0.1:", "Mcp-Session-Id", "elicitation/create", "Stopping (--exit)."} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the demo's output lacks %q:\n%s", want, stdout)
		}
	}
	project := projectLine(stdout)
	if project == "" {
		t.Fatalf("the demo did not say where its project is:\n%s", stdout)
	}
	if _, err := os.Stat(project); !os.IsNotExist(err) {
		t.Errorf("the demo left its project behind: %s (stat: %v)", project, err)
	}
}

// TestReadmeShowsTheDemoWalkthrough: the curl script in README.md is the
// one `mcpgen demo` prints, so that the bounded, re-runnable version is what
// people paste.
func TestReadmeShowsTheDemoWalkthrough(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := templates.Curl("http://127.0.0.1:PORT/mcp")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte(script)) {
		t.Error("README.md's curl walkthrough differs from templates/curl.sh.tmpl; copy the template into the README")
	}
}
