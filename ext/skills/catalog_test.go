package skills

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcpgen/mcpgen/runtime"
)

func digest(data string) string {
	sum := sha256.Sum256([]byte(data))
	return "sha256:" + hex.EncodeToString(sum[:])
}

const pdfSkillMD = "---\nname: pdf-processing\ndescription: Extract PDF text.\n---\n# PDF\n"

// testSkills are two skills: pdf-processing with a folder of templates
// and a binary file, and a dynamic one with scopes.
func testSkills() ([]Skill, fstest.MapFS) {
	fsys := fstest.MapFS{
		"skills/pdf-processing/SKILL.md":                 {Data: []byte(pdfSkillMD)},
		"skills/pdf-processing/templates/invoice.md":     {Data: []byte("# Invoice\n")},
		"skills/pdf-processing/templates/regional/eu.md": {Data: []byte("# EU\n")},
		"skills/pdf-processing/assets/logo.png":          {Data: []byte{0x89, 'P', 'N', 'G', 0xff}},
		"skills/reports/SKILL.md":                        {Data: []byte("---\nname: reports\ndescription: Daily reports.\n---\n")},
	}
	static := func(p, mime string) File {
		data := string(fsys["skills/pdf-processing/"+p].Data)
		return File{Path: p, MIMEType: mime, Size: int64(len(data)), Digest: digest(data)}
	}
	reportMD := string(fsys["skills/reports/SKILL.md"].Data)
	return []Skill{{
		Path:        "pdf-processing",
		Frontmatter: json.RawMessage(`{"name":"pdf-processing","description":"Extract PDF text."}`),
		FS:          fsys, Dir: "skills/pdf-processing",
		Files: []File{static("SKILL.md", "text/markdown"), static("assets/logo.png", "image/png"),
			static("templates/invoice.md", "text/markdown"), static("templates/regional/eu.md", "text/markdown")},
	}, {
		Path:        "reports",
		Frontmatter: json.RawMessage(`{"name":"reports","description":"Daily reports."}`),
		FS:          fsys, Dir: "skills/reports",
		Scopes: []string{"reports:read"},
		Files: []File{{Path: "SKILL.md", MIMEType: "text/markdown", Size: int64(len(reportMD)), Digest: digest(reportMD)},
			{Path: "today.md", MIMEType: "text/markdown", Read: func(ctx context.Context) ([]byte, error) { return []byte("# Today\n"), nil }}},
	}}, fsys
}

func TestCatalogEntries(t *testing.T) {
	skills, _ := testSkills()
	c, err := newCatalog(skills, Options{PageSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, cache, err := c.list(json.RawMessage(`{}`), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"skills":[{"uri":"skill://pdf-processing/SKILL.md","frontmatter":{"name":"pdf-processing","description":"Extract PDF text."},`+
		`"resources":[{"uri":"skill://pdf-processing/SKILL.md","digest":"%s","size":%d},`+
		`{"uri":"skill://pdf-processing/assets/logo.png","digest":"%s","size":5},`+
		`{"uri":"skill://pdf-processing/templates/invoice.md","digest":"%s","size":10},`+
		`{"uri":"skill://pdf-processing/templates/regional/eu.md","digest":"%s","size":5}]}],"nextCursor":"MQ"}`,
		digest(pdfSkillMD), len(pdfSkillMD), skills[0].Files[1].Digest, digest("# Invoice\n"), digest("# EU\n"))
	if string(res) != want {
		t.Errorf("first page:\n got %s\nwant %s", res, want)
	}
	// A skill with scopes makes the list depend on the caller.
	if cache.Scope != runtime.CachePrivate || cache.TTL != DefaultCache.TTL {
		t.Errorf("cache %+v", cache)
	}
	res, _, err = c.list(json.RawMessage(`{"cursor":"MQ"}`), false, nil)
	if err != nil || string(res) != `{"skills":[{"uri":"skill://reports/SKILL.md","frontmatter":{"name":"reports","description":"Daily reports."},"resources":"dynamic"}]}` {
		t.Errorf("second page: %s %v", res, err)
	}
	for _, bad := range []string{`{"cursor":"Mg"}`, `{"cursor":"x"}`, `{"cursor":""}`, `{"cursor":3}`} {
		if _, _, err := c.list(json.RawMessage(bad), false, nil); !isInvalidParams(err) {
			t.Errorf("list %s: %v", bad, err)
		}
	}
	// FilterLists: a caller without reports:read does not see the skill.
	res, _, _ = c.list(json.RawMessage(`{}`), true, func(scopes []string) bool { return len(scopes) == 0 })
	if strings.Contains(string(res), "reports") || strings.Contains(string(res), "nextCursor") {
		t.Errorf("filtered list: %s", res)
	}

	res, cache, err = c.get(json.RawMessage(`{"uri":"skill://pdf-processing/SKILL.md"}`))
	if err != nil || !strings.HasPrefix(string(res), `{"skill":{"uri":"skill://pdf-processing/SKILL.md","frontmatter":`) || *cache != DefaultCache {
		t.Errorf("get: %s %+v %v", res, cache, err)
	}
	for _, bad := range []string{`{"uri":"skill://pdf-processing"}`, `{"uri":"skill://nope/SKILL.md"}`, `{}`, `{"uri":1}`} {
		if _, _, err := c.get(json.RawMessage(bad)); !isInvalidParams(err) {
			t.Errorf("get %s: %v", bad, err)
		}
	}
}

func TestCatalogDirectories(t *testing.T) {
	skills, _ := testSkills()
	c, err := newCatalog(skills, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.readDirectory(json.RawMessage(`{"uri":"skill://pdf-processing"}`))
	want := `{"resources":[{"uri":"skill://pdf-processing/SKILL.md","name":"pdf-processing","description":"Extract PDF text.","mimeType":"text/markdown","size":` +
		fmt.Sprint(len(pdfSkillMD)) + `},{"uri":"skill://pdf-processing/assets","name":"assets","mimeType":"inode/directory"},` +
		`{"uri":"skill://pdf-processing/templates","name":"templates","mimeType":"inode/directory"}]}`
	if err != nil || string(res) != want {
		t.Errorf("root:\n got %s\nwant %s (%v)", res, want, err)
	}
	res, _ = c.readDirectory(json.RawMessage(`{"uri":"skill://pdf-processing/templates"}`))
	if !strings.Contains(string(res), `{"uri":"skill://pdf-processing/templates/regional","name":"regional","mimeType":"inode/directory"}`) ||
		!strings.Contains(string(res), `"name":"invoice.md","mimeType":"text/markdown","size":10`) {
		t.Errorf("templates: %s", res)
	}
	res, _ = c.readDirectory(json.RawMessage(`{"uri":"skill://reports"}`))
	if !strings.Contains(string(res), `{"uri":"skill://reports/today.md","name":"today.md","mimeType":"text/markdown"}`) {
		t.Errorf("a dynamic file is listed without a size: %s", res)
	}
	for _, bad := range []string{`{"uri":"skill://pdf-processing/SKILL.md"}`, `{"uri":"skill://pdf-processing/"}`, `{"uri":"skill://nope"}`, `{}`} {
		if _, err := c.readDirectory(json.RawMessage(bad)); !isInvalidParams(err) {
			t.Errorf("directory read %s: %v", bad, err)
		}
	}
}

func TestCatalogRefusesWhatHostsWouldReject(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(s []Skill, fsys fstest.MapFS)
		want string
	}{
		{"a file edited after generation", func(s []Skill, fsys fstest.MapFS) {
			fsys["skills/pdf-processing/templates/invoice.md"] = &fstest.MapFile{Data: []byte("# Invoice, edited\n")}
		}, "changed since the code was generated"},
		{"a name that is not the path's last segment", func(s []Skill, _ fstest.MapFS) { s[0].Path = "acme/pdf" }, `differs from the path's last segment`},
		{"no SKILL.md", func(s []Skill, _ fstest.MapFS) { s[0].Files = s[0].Files[1:] }, "no SKILL.md"},
		{"a dynamic SKILL.md", func(s []Skill, _ fstest.MapFS) {
			s[1].Files[0].Read = func(context.Context) ([]byte, error) { return nil, nil }
		}, "SKILL.md cannot be dynamic"},
		{"a file listed twice", func(s []Skill, _ fstest.MapFS) { s[0].Files = append(s[0].Files, s[0].Files[1]) }, "listed twice"},
		{"a path leaving the skill", func(s []Skill, _ fstest.MapFS) { s[0].Files[1].Path = "../x.md" }, "not a clean path"},
		{"a skill twice", func(s []Skill, _ fstest.MapFS) { s[1] = s[0] }, "registered twice"},
		{"a frontmatter without description", func(s []Skill, _ fstest.MapFS) {
			s[0].Frontmatter = json.RawMessage(`{"name":"pdf-processing"}`)
		}, "needs a name and a description"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			skills, fsys := testSkills()
			tc.edit(skills, fsys)
			if _, err := newCatalog(skills, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func isInvalidParams(err error) bool {
	var e *runtime.Error
	return errors.As(err, &e) && e.Code == runtime.CodeInvalidParams
}
