package generator

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealworld regenerates testdata/realworld from its tools folder and
// checks that the committed package and its test client are up to date
// (what --check does) and compile.
func TestRealworld(t *testing.T) {
	inputs, err := ReadInputs([]string{"../testdata/realworld/tools"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Generate(Config{Package: "realworld", Inputs: inputs, ImportPath: "github.com/mcpgen/mcpgen/testdata/realworld"})
	if err != nil {
		t.Fatal(err)
	}
	tools := 0
	for name, data := range res.Files {
		if strings.HasSuffix(name, "_tool.go") {
			tools++
		}
		disk, err := os.ReadFile(filepath.Join("../testdata/realworld", name))
		if err != nil || !bytes.Equal(disk, data) {
			t.Errorf("%s is not up to date (run go generate ./testdata/realworld)", name)
		}
	}
	if tools < 20 {
		t.Errorf("only %d real-world tools", tools)
	}
	if testing.Short() {
		return
	}
	cmd := exec.Command("go", "vet", "./testdata/realworld/...")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet: %v\n%s", err, out)
	}
}
