package skills

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

// The extension as clients see it, in every era and transport: the
// entries of skills/list and skills/get, the files behind them, the
// folders of resources/directory/read, and the declaration in the
// capabilities.

// pageSize is the page size of the servers of these tests: small enough
// that both the list and the folders span pages.
const pageSize = 2

func newSkillServer(t *testing.T) *runtime.Server {
	return skillServer(t, servedSkills(), Options{PageSize: pageSize, DirectoryRead: true}, runtime.Options{})
}

// wantEntries are the entries servedSkills publish, in registration order:
// each skill's frontmatter, and its manifest of every static file with the
// digest and size it was given (nil for a skill with a file produced at run
// time, whose resources is "dynamic").
func wantEntries(t *testing.T) []skillEntry {
	t.Helper()
	var out []skillEntry
	for _, s := range servedSkills() {
		e := skillEntry{URI: fileURI(s.Path, "SKILL.md"), Resources: json.RawMessage(`"dynamic"`)}
		if err := json.Unmarshal(s.Frontmatter, &e.Frontmatter); err != nil {
			t.Fatal(err)
		}
		var files []skillResource
		for _, f := range s.Files {
			if f.Read != nil {
				files = nil
				break
			}
			files = append(files, skillResource{URI: fileURI(s.Path, f.Path), Digest: f.Digest, Size: f.Size})
		}
		if files != nil {
			e.Resources, _ = json.Marshal(files)
		}
		out = append(out, e)
	}
	return out
}

// fileURI is the URI of a file of a skill whose path is one segment:
// skill://<skill path>/<file path>, percent-encoded.
func fileURI(skillPath, filePath string) string {
	return (&url.URL{Scheme: "skill", Host: skillPath, Path: "/" + filePath}).String()
}

// entryCache is the cache hint of an entry's skills/get: private for the
// skill with scopes, whose reads depend on the caller.
func entryCache(uri string) *runtime.CacheHint {
	if uri == "skill://reports/SKILL.md" {
		return &privateCache
	}
	return &DefaultCache
}

// TestSkillsListAndGet: skills/list pages through every skill, whole
// entries only, each identical to what skills/get answers for its URI; an
// unknown skill and a cursor the server did not make are -32602.
func TestSkillsListAndGet(t *testing.T) {
	want := wantEntries(t)
	eachClient(t, newSkillServer, func(t *testing.T, c *mcptest.Client, _ string) {
		// One skill has scopes, so the list depends on who asks.
		listed := listSkills(t, c, pageSize, &privateCache)
		if len(listed) != len(want) {
			t.Fatalf("skills/list: %d entries, want %d: %+v", len(listed), len(want), listed)
		}
		for i, e := range listed {
			w := want[i]
			if e.URI != w.URI || !reflect.DeepEqual(e.Frontmatter, w.Frontmatter) || !reflect.DeepEqual(e.manifest(t), w.manifest(t)) {
				t.Errorf("skills/list entry %d:\n got %s %v %s\nwant %s %v %s", i, e.URI, e.Frontmatter, e.Resources, w.URI, w.Frontmatter, w.Resources)
			}
			r := call(t, c, "skills/get", map[string]any{"uri": e.URI})
			checkCache(t, c, "skills/get "+e.URI, r, entryCache(e.URI))
			var got struct {
				Skill skillEntry `json:"skill"`
			}
			r.decode(t, "skill", &got.Skill)
			if !reflect.DeepEqual(got.Skill.Frontmatter, e.Frontmatter) || !reflect.DeepEqual(got.Skill.manifest(t), e.manifest(t)) || got.Skill.URI != e.URI {
				t.Errorf("skills/get %s differs from its skills/list entry:\n got %s %v %s\nlist %v %s", e.URI, got.Skill.URI, got.Skill.Frontmatter, got.Skill.Resources, e.Frontmatter, e.Resources)
			}
		}
		for _, uri := range []string{"skill://nope/SKILL.md", "skill://pdf-processing", "skill://pdf-processing/templates/invoice.md"} {
			_, err := c.Request(t.Context(), "skills/get", map[string]any{"uri": uri})
			if rpcCode(err) != runtime.CodeInvalidParams || !strings.Contains(err.Error(), "No skill is served at "+uri) {
				t.Errorf("skills/get %s: %v, want -32602 naming the URI", uri, err)
			}
		}
		for _, cursor := range []string{"x", "MQ", ""} {
			if _, err := c.Request(t.Context(), "skills/list", map[string]any{"cursor": cursor}); rpcCode(err) != runtime.CodeInvalidParams {
				t.Errorf("skills/list with cursor %q: %v, want -32602", cursor, err)
			}
		}
	}, false)
}

// TestSkillFilesRead: every skill file is in resources/list (SKILL.md named
// and described from its frontmatter) and reads with its mimeType, as bytes
// that match the digest and size its entry published; the cache hint of a
// read (2026-07-28) is public for a skill without scopes and private for
// one with.
func TestSkillFilesRead(t *testing.T) {
	// The static files of a skill with a dynamic one are in no manifest:
	// their reads are checked against the digests they were given.
	published := map[string]skillResource{}
	descriptions := map[string]string{}
	for _, s := range servedSkills() {
		for _, f := range s.Files {
			if f.Read == nil {
				uri := fileURI(s.Path, f.Path)
				published[uri] = skillResource{URI: uri, Digest: f.Digest, Size: f.Size}
			}
		}
		var fm frontmatterFields
		if err := json.Unmarshal(s.Frontmatter, &fm); err != nil {
			t.Fatal(err)
		}
		descriptions[fileURI(s.Path, "SKILL.md")] = *fm.Description
	}
	eachClient(t, newSkillServer, func(t *testing.T, c *mcptest.Client, _ string) {
		// A host verifies what it reads against the entries it listed.
		manifests := map[string]skillResource{}
		for _, e := range listSkills(t, c, pageSize, &privateCache) {
			for _, f := range e.manifest(t) {
				manifests[f.URI] = f
			}
		}
		if len(manifests) != 8 {
			t.Errorf("the entries list %d files with digests, want the 8 of the skills without a dynamic file", len(manifests))
		}
		listed, err := c.ListResources(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, r := range listed {
			want, known := served[r.URI]
			if !known {
				t.Errorf("resources/list has %s, not a file of the skills", r.URI)
				continue
			}
			seen[r.URI] = true
			if r.MIMEType != want.mimeType {
				t.Errorf("resources/list: %s has mimeType %q, want %q", r.URI, r.MIMEType, want.mimeType)
			}
			if f, static := published[r.URI]; static && (r.Size == nil || *r.Size != f.Size) {
				t.Errorf("resources/list: %s has size %v, want %d", r.URI, r.Size, f.Size)
			}
			if d, isSkillMD := descriptions[r.URI]; isSkillMD {
				name := strings.TrimSuffix(strings.TrimPrefix(r.URI, "skill://"), "/SKILL.md")
				if r.Name != name || r.Description != d {
					t.Errorf("resources/list: %s is named %q and described %q, want the frontmatter's %q and %q", r.URI, r.Name, r.Description, name, d)
				}
			}
		}
		for uri := range served {
			if !seen[uri] {
				t.Errorf("resources/list lacks %s", uri)
			}
			data, r := readFile(t, c, uri)
			hint := served[uri].cache
			checkCache(t, c, "resources/read "+uri, r, &hint)
			if f, listed := manifests[uri]; listed {
				verify(t, f, data)
			} else if f, static := published[uri]; static {
				verify(t, f, data)
			} else if string(data) != "# Today\n" {
				t.Errorf("resources/read %s, a file produced at run time: %q", uri, data)
			}
		}
	}, false)
}

// walk reads the folder at uri and every folder below it with
// resources/directory/read, following the pages, and returns the files it
// found, each with the Resource object its folder listed.
func walk(t *testing.T, c *mcptest.Client, uri string, files map[string]runtime.ResourceInfo) {
	t.Helper()
	var cursor string
	for page := 1; ; page++ {
		params := map[string]any{"uri": uri}
		if page > 1 {
			params["cursor"] = cursor
		}
		r := call(t, c, "resources/directory/read", params)
		checkCache(t, c, "resources/directory/read "+uri, r, nil) // paginated, not cacheable
		var children []runtime.ResourceInfo
		r.decode(t, "resources", &children)
		if len(children) > pageSize || len(children) == 0 {
			t.Errorf("resources/directory/read %s page %d: %d children, with %d per page", uri, page, len(children), pageSize)
		}
		for _, ch := range children {
			// A child is named by its last segment, a SKILL.md by its skill.
			parent, segment, _ := cutLast(ch.URI)
			if segment == "SKILL.md" {
				_, segment, _ = cutLast(parent)
			}
			name, err := url.PathUnescape(segment)
			if parent != uri || err != nil || name != ch.Name {
				t.Errorf("resources/directory/read %s: %+v is not a direct child with the name it should have", uri, ch)
			}
			if ch.MIMEType == directoryMIMEType {
				walk(t, c, ch.URI, files)
			} else {
				files[ch.URI] = ch
			}
		}
		if r["nextCursor"] == nil {
			return
		}
		r.decode(t, "nextCursor", &cursor)
		if page > 100 {
			t.Fatalf("resources/directory/read %s: more than 100 pages", uri)
		}
	}
}

// cutLast splits uri at its last slash.
func cutLast(uri string) (parent, last string, ok bool) {
	i := strings.LastIndex(uri, "/")
	if i < 0 {
		return "", uri, false
	}
	return uri[:i], uri[i+1:], true
}

// TestDirectoryRead: with DirectoryRead on, walking each skill's root
// finds exactly its files, listed as resources/list lists them, and
// folders as inode/directory; a URI that is not a folder of a skill is
// -32602.
func TestDirectoryRead(t *testing.T) {
	eachClient(t, newSkillServer, func(t *testing.T, c *mcptest.Client, _ string) {
		files := map[string]runtime.ResourceInfo{}
		for _, root := range []string{"skill://pdf-processing", "skill://reports", "skill://release-notes"} {
			walk(t, c, root, files)
		}
		listed, err := c.ListResources(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != len(listed) {
			t.Errorf("the folders hold %d files, resources/list %d", len(files), len(listed))
		}
		for _, r := range listed {
			if f, found := files[r.URI]; !found || !reflect.DeepEqual(f, r) {
				t.Errorf("resources/list has %+v; its folder lists %+v", r, f)
			}
		}
		for _, uri := range []string{"skill://pdf-processing/SKILL.md", "skill://pdf-processing/", "skill://pdf-processing/templates/", "skill://nope", "skill://pdf"} {
			_, err := c.Request(t.Context(), "resources/directory/read", map[string]any{"uri": uri})
			if rpcCode(err) != runtime.CodeInvalidParams || !strings.Contains(err.Error(), uri+" is not a directory resource") {
				t.Errorf("resources/directory/read %s: %v, want -32602 saying it is not a directory", uri, err)
			}
		}
		if _, err := c.Request(t.Context(), "resources/directory/read", map[string]any{"uri": "skill://pdf-processing", "cursor": "zz"}); rpcCode(err) != runtime.CodeInvalidParams {
			t.Errorf("resources/directory/read with a cursor the server did not make: %v, want -32602", err)
		}
	}, false)
}

// TestDirectoryReadOff: a server without DirectoryRead does not serve
// resources/directory/read: it answers as for any unknown method (-32601,
// with 404 over HTTP in 2026-07-28). Its other methods carry the cache hint
// of Options.Cache, public for skills without scopes.
func TestDirectoryReadOff(t *testing.T) {
	hint := runtime.CacheHint{TTL: 90 * time.Second, Scope: runtime.CachePublic}
	newServer := func(t *testing.T) *runtime.Server {
		public := slices.DeleteFunc(servedSkills(), func(s Skill) bool { return len(s.Scopes) > 0 })
		return skillServer(t, public, Options{Cache: &hint}, runtime.Options{})
	}
	eachClient(t, newServer, func(t *testing.T, c *mcptest.Client, transport string) {
		_, err := c.Request(t.Context(), "resources/directory/read", map[string]any{"uri": "skill://pdf-processing"})
		var httpErr *mcptest.HTTPError
		refusedWith404 := errors.As(err, &httpErr) && httpErr.StatusCode == http.StatusNotFound
		if rpcCode(err) != runtime.CodeMethodNotFound || refusedWith404 != (transport == "http" && c.Era() == mcptest.Modern) {
			t.Errorf("resources/directory/read without DirectoryRead: %v, want -32601 (with 404 over HTTP in 2026-07-28)", err)
		}
		entries := listSkills(t, c, defaultPageSize, &hint)
		if len(entries) != 2 {
			t.Errorf("skills/list: %+v, want the two skills without scopes", entries)
		}
		for _, e := range entries {
			checkCache(t, c, "skills/get "+e.URI, call(t, c, "skills/get", map[string]any{"uri": e.URI}), &hint)
		}
		_, r := readFile(t, c, "skill://release-notes/data.bin")
		checkCache(t, c, "resources/read", r, &hint)
	}, false)
}

// TestExtensionDeclared: initialize (in a session) and server/discover (in
// 2026-07-28) declare the extension with its settings, and the resources
// capability that serves its files.
func TestExtensionDeclared(t *testing.T) {
	for _, tc := range []struct {
		opts     Options
		settings string
	}{
		{Options{DirectoryRead: true}, `{"directoryRead":true}`},
		{Options{}, `{}`},
	} {
		t.Run(tc.settings, func(t *testing.T) {
			newServer := func(t *testing.T) *runtime.Server { return skillServer(t, servedSkills(), tc.opts, runtime.Options{}) }
			eachClient(t, newServer, func(t *testing.T, c *mcptest.Client, _ string) {
				raw, err := c.ServerCapabilities(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				var caps struct {
					Resources  json.RawMessage            `json:"resources"`
					Extensions map[string]json.RawMessage `json:"extensions"`
				}
				if err := json.Unmarshal(raw, &caps); err != nil {
					t.Fatalf("%v: %s", err, raw)
				}
				if string(caps.Extensions[ExtensionID]) != tc.settings || caps.Resources == nil {
					t.Errorf("capabilities %s: want extensions[%q] = %s, and resources", raw, ExtensionID, tc.settings)
				}
			}, false)
		})
	}
}

// TestSkillURISpellings: a skill and its folders are found however their
// URIs are spelled (scheme and host case, percent-encodings), as
// resources/read finds their files: one resource, one URI.
func TestSkillURISpellings(t *testing.T) {
	eachClient(t, func(t *testing.T) *runtime.Server {
		return skillServer(t, servedSkills(), Options{DirectoryRead: true}, runtime.Options{})
	}, func(t *testing.T, c *mcptest.Client, transport string) {
		for _, uri := range []string{"SKILL://PDF-processing/SKILL.md", "skill://pdf-processing/%53KILL.md", "skill://pdf-processing/SKILL%2emd"} {
			var skill skillEntry
			call(t, c, "skills/get", map[string]any{"uri": uri}).decode(t, "skill", &skill)
			if skill.URI != "skill://pdf-processing/SKILL.md" {
				t.Errorf("%s: skills/get %s: %+v", transport, uri, skill)
			}
		}
		if r := call(t, c, "resources/directory/read", map[string]any{"uri": "Skill://PDF-Processing"}); len(r["resources"]) == 0 {
			t.Errorf("%s: resources/directory/read of Skill://PDF-Processing: %v", transport, r)
		}
	}, false)
}
