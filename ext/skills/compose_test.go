package skills

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestRegisterFromSeveralPackages: two packages' skills on one server (each
// generated package calls Register) are served by one extension, listed
// together in registration order, every file readable; a Register that
// cannot join (a skill already served, a file URI taken, other Options)
// fails before it adds anything.
func TestRegisterFromSeveralPackages(t *testing.T) {
	all := servedSkills()
	opts := Options{PageSize: pageSize, DirectoryRead: true}
	newServer := func(t *testing.T) *runtime.Server {
		t.Helper()
		s := runtime.NewServer(runtime.Options{Name: "skills-test"})
		if err := Register(s, all[:1], opts); err != nil {
			t.Fatal(err)
		}
		if err := Register(s, all[1:], opts); err != nil {
			t.Fatalf("a second package's skills: %v", err)
		}
		before := len(s.Describe().Resources)
		for _, tc := range []struct {
			skills []Skill
			opts   Options
			want   string
		}{
			{all[1:2], opts, "registered"},
			{all[:1], Options{PageSize: pageSize}, "other Options"},
		} {
			if err := Register(s, tc.skills, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Register of %s: %v, want an error saying %q", tc.skills[0].Path, err, tc.want)
			}
		}
		if after := len(s.Describe().Resources); after != before {
			t.Errorf("a refused Register added %d resources", after-before)
		}
		return s
	}
	want := wantEntries(t)
	eachClient(t, newServer, func(t *testing.T, c *mcptest.Client, _ string) {
		listed := listSkills(t, c, pageSize, &privateCache)
		if len(listed) != len(want) {
			t.Fatalf("skills/list: %d entries, want %d", len(listed), len(want))
		}
		for i, e := range listed {
			if e.URI != want[i].URI {
				t.Errorf("entry %d: %s, want %s", i, e.URI, want[i].URI)
			}
			if _, err := c.ReadResource(t.Context(), e.URI); err != nil {
				t.Errorf("reading %s: %v", e.URI, err)
			}
		}
	}, false)
}

// TestRegisterRefusesATakenURI: a skill whose file URI another feature
// serves already is refused before the extension or any file is added.
func TestRegisterRefusesATakenURI(t *testing.T) {
	s := runtime.NewServer(runtime.Options{})
	defer s.Close()
	all := servedSkills()
	taken := all[0].Files[1]
	uri := "skill://" + all[0].Path + "/" + taken.Path
	if err := s.AddResource(runtime.Resource{URI: uri, Definition: []byte(`{"uri":"` + uri + `","name":"x"}`),
		Handler: staticHandler([]byte("x"), "")}); err != nil {
		t.Fatal(err)
	}
	if err := Register(s, all, Options{}); err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Fatalf("Register over a taken URI: %v", err)
	}
	if _, ok := s.Extension(ExtensionID); ok || len(s.Describe().Resources) != 1 {
		t.Fatalf("a refused Register added something: %d resources", len(s.Describe().Resources))
	}
}
