package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	"github.com/mcpgen/mcpgen/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

// The tests of this file and its neighbours drive a runtime.Server with the
// skills registered through the clients a host would use: mcptest's client
// over real HTTP on loopback (httptest) and over ServeStdio on pipes, in a
// 2025-11-25 session and in 2026-07-28.

// eachClient runs body once per transport ("http", "stdio") and era, each
// with a server of its own from newServer. opts go to every client (an
// Authorization header...); httpOnly leaves stdio out, for what only HTTP
// carries.
func eachClient(t *testing.T, newServer func(t *testing.T) *runtime.Server, body func(t *testing.T, c *mcptest.Client, transport string), httpOnly bool, opts ...mcptest.Option) {
	t.Helper()
	transports := []string{"http", "stdio"}
	if httpOnly {
		transports = transports[:1]
	}
	for _, transport := range transports {
		for _, era := range []mcptest.Era{mcptest.Legacy, mcptest.Modern} {
			t.Run(transport+"/"+string(era), func(t *testing.T) {
				srv := newServer(t)
				t.Cleanup(func() { _ = srv.Close() }) // cleanups run last first: after the client's and the listener's
				target := mcptest.Stdio(srv)
				if transport == "http" {
					ts := httptest.NewServer(srv)
					t.Cleanup(ts.Close)
					target = mcptest.URL(ts.URL + "/mcp")
				}
				body(t, mcptest.Connect(t, target, era, opts...), transport)
			})
		}
	}
}

// servedSkills are the skills of testSkills and a third, release-notes,
// whose files have no declared mimeType (one UTF-8, one not) and one of
// which has a name its URI percent-encodes.
func servedSkills() []Skill {
	skills, fsys := testSkills()
	files := map[string][]byte{
		"SKILL.md":                  []byte("---\nname: release-notes\ndescription: Write release notes.\n---\n# Release notes\n"),
		"notes.txt":                 []byte("Group the changes by area.\n"),
		"data.bin":                  {0x00, 0xfe, 0xff, 0x80},
		"examples/première note.md": []byte("# Première\n"),
	}
	skill := Skill{
		Path:        "release-notes",
		Frontmatter: json.RawMessage(`{"name":"release-notes","description":"Write release notes."}`),
		FS:          fsys, Dir: "skills/release-notes",
	}
	for _, p := range []string{"SKILL.md", "notes.txt", "data.bin", "examples/première note.md"} {
		fsys["skills/release-notes/"+p] = &fstest.MapFile{Data: files[p]}
		skill.Files = append(skill.Files, File{Path: p, Size: int64(len(files[p])), Digest: digest(string(files[p]))})
	}
	skill.Files[0].MIMEType, skill.Files[3].MIMEType = "text/markdown", "text/markdown"
	return append(skills, skill)
}

// served is what the tests expect of each file of servedSkills: its
// mimeType, and the cache hint of its reads in 2026-07-28 (public for a
// skill without scopes, private for one with, and the runtime's default,
// private and stale at once, for a file produced at run time).
var served = map[string]struct {
	mimeType string
	cache    runtime.CacheHint
}{
	"skill://pdf-processing/SKILL.md":                        {"text/markdown", DefaultCache},
	"skill://pdf-processing/assets/logo.png":                 {"image/png", DefaultCache},
	"skill://pdf-processing/templates/invoice.md":            {"text/markdown", DefaultCache},
	"skill://pdf-processing/templates/regional/eu.md":        {"text/markdown", DefaultCache},
	"skill://reports/SKILL.md":                               {"text/markdown", privateCache},
	"skill://reports/today.md":                               {"text/markdown", runtime.DefaultReadCache},
	"skill://release-notes/SKILL.md":                         {"text/markdown", DefaultCache},
	"skill://release-notes/notes.txt":                        {"text/plain", DefaultCache},
	"skill://release-notes/data.bin":                         {"application/octet-stream", DefaultCache},
	"skill://release-notes/examples/premi%C3%A8re%20note.md": {"text/markdown", DefaultCache},
}

var privateCache = runtime.CacheHint{TTL: DefaultCache.TTL, Scope: runtime.CachePrivate}

// skillServer is a server with skills registered with opts.
func skillServer(t *testing.T, skills []Skill, opts Options, srvOpts runtime.Options) *runtime.Server {
	t.Helper()
	srvOpts.Name = "skills-test"
	s := runtime.NewServer(srvOpts)
	if err := Register(s, skills, opts); err != nil {
		t.Fatal(err)
	}
	return s
}

// skillEntry is a Skill entry as a client reads it.
type skillEntry struct {
	URI         string            `json:"uri"`
	Frontmatter map[string]string `json:"frontmatter"`
	Resources   json.RawMessage   `json:"resources"`
}

// manifest is the entry's files, or nil when its resources is "dynamic".
func (e *skillEntry) manifest(t *testing.T) []skillResource {
	t.Helper()
	if string(e.Resources) == `"dynamic"` {
		return nil
	}
	var files []skillResource
	if err := json.Unmarshal(e.Resources, &files); err != nil || len(files) == 0 {
		t.Fatalf("%s: resources is neither \"dynamic\" nor a list of files: %s", e.URI, e.Resources)
	}
	return files
}

// result is a result as the tests read it: its members undecoded.
type result map[string]json.RawMessage

// call sends method and decodes its result.
func call(t *testing.T, c *mcptest.Client, method string, params any) result {
	t.Helper()
	raw, err := c.Request(t.Context(), method, params)
	if err != nil {
		t.Fatalf("%s %v: %v", method, params, err)
	}
	var r result
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: %v: %s", method, err, raw)
	}
	return r
}

// decode decodes member key of r into dst.
func (r result) decode(t *testing.T, key string, dst any) {
	t.Helper()
	if err := json.Unmarshal(r[key], dst); err != nil {
		t.Fatalf("%s: %v: %s", key, err, r[key])
	}
}

// checkCache checks the cache hint of a result: want in 2026-07-28, none
// (nor a resultType) in a session, whose protocol has no such members.
func checkCache(t *testing.T, c *mcptest.Client, what string, r result, want *runtime.CacheHint) {
	t.Helper()
	if c.Era() != mcptest.Modern {
		for _, key := range []string{"ttlMs", "cacheScope", "resultType"} {
			if r[key] != nil {
				t.Errorf("%s: %s in a %s session: %s", what, key, c.Era(), r[key])
			}
		}
		return
	}
	if string(r["resultType"]) != `"complete"` {
		t.Errorf("%s: resultType %s, want \"complete\"", what, r["resultType"])
	}
	if want == nil {
		if r["ttlMs"] != nil || r["cacheScope"] != nil {
			t.Errorf("%s: a cache hint (ttlMs %s, cacheScope %s) on a result that has none", what, r["ttlMs"], r["cacheScope"])
		}
		return
	}
	wantTTL, wantScope := want.TTL.Milliseconds(), `"`+string(want.Scope)+`"`
	var ttl int64
	if err := json.Unmarshal(r["ttlMs"], &ttl); err != nil || ttl != wantTTL || string(r["cacheScope"]) != wantScope {
		t.Errorf("%s: ttlMs %s, cacheScope %s; want %d, %s", what, r["ttlMs"], r["cacheScope"], wantTTL, wantScope)
	}
}

// rpcCode is the JSON-RPC error code err carries, 0 for none.
func rpcCode(err error) int {
	var e *runtime.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// readFile reads uri and returns its bytes, checking that the contents are
// one item for uri with the mimeType the file is served with.
func readFile(t *testing.T, c *mcptest.Client, uri string) ([]byte, result) {
	t.Helper()
	r := call(t, c, "resources/read", map[string]any{"uri": uri})
	var contents []runtime.ResourceContents
	r.decode(t, "contents", &contents)
	if len(contents) != 1 || contents[0].URI != uri {
		t.Fatalf("resources/read %s: contents %+v, want one item for the URI", uri, contents)
	}
	want, known := served[uri]
	if got := contents[0].MIMEType; !known || got != want.mimeType {
		t.Errorf("resources/read %s: mimeType %q, want %q", uri, got, want.mimeType)
	}
	if contents[0].Blob != nil {
		return contents[0].Blob, r
	}
	return []byte(contents[0].Text), r
}

// verify checks data against the digest and size a manifest published.
func verify(t *testing.T, f skillResource, data []byte) {
	t.Helper()
	sum := sha256.Sum256(data)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != f.Digest || int64(len(data)) != f.Size {
		t.Errorf("%s: read %d bytes with digest %s; the entry published %d bytes, %s", f.URI, len(data), got, f.Size, f.Digest)
	}
}

// listSkills follows skills/list's pages and returns every entry, checking
// that no page holds more than pageSize entries and every page but the last
// exactly that many.
func listSkills(t *testing.T, c *mcptest.Client, pageSize int, wantCache *runtime.CacheHint) []skillEntry {
	t.Helper()
	var all []skillEntry
	var cursor *string
	for page := 1; ; page++ {
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = *cursor
		}
		r := call(t, c, "skills/list", params)
		checkCache(t, c, "skills/list", r, wantCache)
		var entries []skillEntry
		r.decode(t, "skills", &entries)
		cursor = nil
		if r["nextCursor"] != nil {
			cursor = new(string)
			r.decode(t, "nextCursor", cursor)
		}
		if len(entries) > pageSize || cursor != nil && len(entries) != pageSize {
			t.Errorf("skills/list page %d: %d entries, with %d per page", page, len(entries), pageSize)
		}
		all = append(all, entries...)
		if cursor == nil {
			return all
		}
		if page > 100 {
			t.Fatal("skills/list: more than 100 pages")
		}
	}
}
