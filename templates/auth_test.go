package templates

import (
	"bytes"
	"go/format"
	"testing"
)

func TestProjectWithAuth(t *testing.T) {
	files, err := Project(Data{Name: "srv", Package: "notes", ImportPath: "example.com/srv", AuthIssuer: "https://auth.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		switch f.Path {
		case "main.go":
			if got, err := format.Source(f.Data); err != nil || !bytes.Equal(got, f.Data) {
				t.Errorf("main.go is not gofmt-clean: %v", err)
			}
			for _, want := range []string{`"github.com/mcpgen/mcpgen/oauth"`, `flag.StringVar(&cfg.issuer, "issuer", "https://auth.example.com",`, "oauth.NewJWTVerifier", "opts.Auth = &runtime.Auth{"} {
				if !bytes.Contains(f.Data, []byte(want)) {
					t.Errorf("main.go lacks %s", want)
				}
			}
		case "README.md":
			if !bytes.Contains(f.Data, []byte("## Authorization")) || !bytes.Contains(f.Data, []byte("mcpgen init --auth https://auth.example.com")) {
				t.Errorf("README.md does not explain authorization")
			}
		}
	}
	plain, err := Project(Data{Name: "srv", Package: "notes", ImportPath: "example.com/srv"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range plain {
		if bytes.Contains(f.Data, []byte("oauth.")) || bytes.Contains(f.Data, []byte("## Authorization")) {
			t.Errorf("%s of a scaffold without --auth mentions authorization setup", f.Path)
		}
	}
}

// TestProjectWithAuthAndOTel: both options together render one main.go that
// is a resource server with telemetry behind -otel.
func TestProjectWithAuthAndOTel(t *testing.T) {
	files, err := Project(Data{Name: "srv", Package: "notes", ImportPath: "example.com/srv", AuthIssuer: "https://auth.example.com", OTel: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path != "main.go" {
			continue
		}
		if got, err := format.Source(f.Data); err != nil || !bytes.Equal(got, f.Data) {
			t.Errorf("main.go is not gofmt-clean (%v):\n%s", err, f.Data)
		}
		for _, want := range []string{"opts.Auth = &runtime.Auth{", `flag.BoolVar(&cfg.otel, "otel"`, "opts.Interceptors = append(opts.Interceptors, telemetry)"} {
			if !bytes.Contains(f.Data, []byte(want)) {
				t.Errorf("main.go lacks %s", want)
			}
		}
	}
}
