package mcptest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

// pitfallEnv makes TestPitfallFixture run: it fails on purpose, so it runs
// only inside TestRerunReport's child process.
const pitfallEnv = "MCPTEST_PITFALL_FIXTURE"

// TestPitfallFixture is a user's test of a handler that does work before
// its question (pay counts its attempts first): the count is right in a
// session and doubled in 2026-07-28, where pay runs again with the answer.
func TestPitfallFixture(t *testing.T) {
	if os.Getenv(pitfallEnv) == "" {
		t.Skip("run by TestRerunReport")
	}
	var l *ledger
	newServer := func(t *testing.T) *runtime.Server {
		l = &ledger{}
		return newFixtureServer(t, l)
	}
	mcptest.Run(t, newServer, func(t *testing.T, c *mcptest.Client) {
		declare(c)
		c.Accept("confirm", confirmAnswer{OK: true})
		if got := callText(t, c, "pay", map[string]string{"to": "bob"}); got != "paid bob" {
			t.Errorf("pay: %q", got)
		}
		if l.attempts != 1 {
			t.Errorf("payment attempts recorded: %d, want 1", l.attempts)
		}
	})
}

// TestRerunReport runs TestPitfallFixture in a child process and checks
// that it fails in 2026-07-28 only, with the user's own assertion and the
// report that explains it: which call ran twice, after which question, and
// the rule.
func TestRerunReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestPitfallFixture$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), pitfallEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the fixture passed:\n%s", out)
	}
	text := string(out)
	for _, want := range []string{
		"--- PASS: TestPitfallFixture/2025-11-25",
		"--- FAIL: TestPitfallFixture/2026-07-28",
		"payment attempts recorded: 2, want 1",
		"tools/call pay ran 2 times: run 2 came with the answer to confirm",
		"runs again from the top when the client retries with the answer",
		"Work before a question runs again",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q:\n%s", want, text)
		}
	}
	if legacy := text[:strings.Index(text, "=== RUN   TestPitfallFixture/2026-07-28")]; strings.Contains(legacy, "ran 2 times") {
		t.Errorf("the 2025-11-25 subtest got the report:\n%s", text)
	}
}
