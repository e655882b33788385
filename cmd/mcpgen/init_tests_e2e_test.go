package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// testScaffoldTests runs the scaffold's own tests (notes/tools_test.go,
// through the generated notes/notestest) and then breaks DeleteNote the two
// ways handlers go wrong, checking that those tests catch each: deleting
// without asking fails in both eras; deleting before asking passes in a
// session and fails in 2026-07-28, where the handler runs again with the
// answer, and the failure says why.
func testScaffoldTests(t *testing.T, dir string) {
	out := mustGo(t, dir, "test", "-count=1", "-v", "./...")
	for _, want := range []string{
		"--- PASS: TestDeleteNoteAsksFirst/accepted/2025-11-25",
		"--- PASS: TestDeleteNoteAsksFirst/accepted/2026-07-28",
		"--- PASS: TestDeleteNoteAsksFirst/declined/2026-07-28",
		"--- PASS: TestDeleteNoteAsksFirst/cancelled/2025-11-25",
		"--- PASS: TestAddedNoteIsReadable/2026-07-28",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("go test -v lacks %q:\n%s", want, out)
		}
	}
	if m := regexp.MustCompile(`(?m)^ok\s+\S+/notes\s+(\S+)`).FindStringSubmatch(out); m != nil {
		t.Logf("the scaffold's tests took %s", m[1])
	}

	tools := filepath.Join(dir, "notes", "tools.go")
	original, err := os.ReadFile(tools)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.WriteFile(tools, original, 0o644); err != nil {
			t.Error(err)
		}
	})
	const ask = `	answer, err := call.ElicitConfirmDelete(ctx, fmt.Sprintf("Delete the note %q? This cannot be undone.", in.Title))`
	if !strings.Contains(string(original), ask) {
		t.Fatalf("tools.go no longer asks with %q", ask)
	}
	for _, m := range []struct {
		name, replace string
		want, not     []string
	}{{
		name:    "deletes without asking",
		replace: "\tanswer, err := ConfirmDelete{Confirm: true}, error(nil)",
		want: []string{
			"--- FAIL: TestDeleteNoteAsksFirst/declined/2025-11-25",
			"--- FAIL: TestDeleteNoteAsksFirst/declined/2026-07-28",
			"--- FAIL: TestDeleteNoteAsksFirst/cancelled/2025-11-25",
			"--- FAIL: TestDeleteNoteAsksFirst/not_confirmed/2026-07-28",
			`delete_note answered "Deleted \"welcome\".", want "Kept \"welcome\": the user declined."`,
		},
	}, {
		name:    "deletes before asking",
		replace: "\tt.mu.Lock()\n\tdelete(t.notes, in.Title)\n\tt.mu.Unlock()\n" + ask,
		want: []string{
			"--- PASS: TestDeleteNoteAsksFirst/accepted/2025-11-25",
			"--- FAIL: TestDeleteNoteAsksFirst/accepted/2026-07-28",
			`tool delete_note failed: there is no note titled "welcome"`,
			"tools/call delete_note ran 2 times: run 2 came with the answer to confirm_delete",
			"Work before a question runs again",
		},
	}} {
		t.Run(m.name, func(t *testing.T) {
			broken := strings.Replace(string(original), ask, m.replace, 1)
			if err := os.WriteFile(tools, []byte(broken), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := goIn(t, dir, "test", "-count=1", "-v", "./notes/")
			if err == nil {
				t.Fatalf("the scaffold's tests pass with a DeleteNote that %s:\n%s", m.name, out)
			}
			for _, want := range m.want {
				if !strings.Contains(out, want) {
					t.Errorf("the failure lacks %q:\n%s", want, out)
				}
			}
		})
	}
	if err := os.WriteFile(tools, original, 0o644); err != nil {
		t.Fatal(err)
	}
}
