package skills

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime"
)

// catalog is what Register built from the skills: the entries of
// skills/list and skills/get, the folders of resources/directory/read, and
// the resources of every file.
type catalog struct {
	entries   []*entry          // in registration order
	byURI     map[string]*entry // by the normalized URI of the SKILL.md (runtime.NormalizeURI)
	dirs      map[string]*dir   // by the folder's URI
	resources []runtime.Resource
	pageSize  int
	cache     runtime.CacheHint // for what does not depend on the caller
	private   runtime.CacheHint // for what does
}

// entry is one skill's Skill entry.
type entry struct {
	uri    string
	json   json.RawMessage // {"uri", "frontmatter", "resources"}
	scopes []string
}

// dir is a folder of a skill: the skill's root or a folder in it.
type dir struct {
	scopes   []string
	children []child
}

// child is an entry of a folder, sorted by name.
type child struct {
	name string
	def  json.RawMessage // its Resource object
}

// directoryMIMEType marks a directory resource.
const directoryMIMEType = "inode/directory"

// frontmatterFields are the fields of a frontmatter the catalog reads.
type frontmatterFields struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
}

// skillResource is one file of an entry's resources.
type skillResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// resourceDef is a file's or a folder's Resource object.
type resourceDef struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        *int64 `json:"size,omitempty"`
}

func newCatalog(skills []Skill, opts Options) (*catalog, error) {
	c := &catalog{byURI: map[string]*entry{}, dirs: map[string]*dir{}, pageSize: opts.PageSize}
	if c.pageSize <= 0 {
		c.pageSize = defaultPageSize
	}
	c.cache = DefaultCache
	if opts.Cache != nil {
		c.cache = *opts.Cache
	}
	if c.cache.Scope != runtime.CachePublic && c.cache.Scope != runtime.CachePrivate || c.cache.TTL < 0 {
		return nil, fmt.Errorf("skills: cache hint %+v: the scope must be public or private, the TTL not negative", c.cache)
	}
	c.private = runtime.CacheHint{TTL: c.cache.TTL, Scope: runtime.CachePrivate}
	for i := range skills {
		if err := c.add(&skills[i]); err != nil {
			return nil, fmt.Errorf("skills: skill %q: %w", skills[i].Path, err)
		}
	}
	for _, d := range c.dirs {
		sort.Slice(d.children, func(i, j int) bool { return d.children[i].name < d.children[j].name })
	}
	return c, nil
}

// add checks one skill and adds its entry, folders and resources.
func (c *catalog) add(s *Skill) error {
	segs := strings.Split(s.Path, "/")
	for _, seg := range segs {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("the path needs one or more /-separated names")
		}
	}
	var fm frontmatterFields
	if err := json.Unmarshal(s.Frontmatter, &fm); err != nil {
		return fmt.Errorf("frontmatter is not a JSON object: %w", err)
	}
	switch {
	case fm.Name == nil || *fm.Name == "" || fm.Description == nil || *fm.Description == "":
		return fmt.Errorf("frontmatter needs a name and a description")
	case *fm.Name != segs[len(segs)-1]:
		return fmt.Errorf("frontmatter name %q differs from the path's last segment", *fm.Name)
	case len(s.Files) > MaxFiles:
		return fmt.Errorf("%d files; a skill may have at most %d", len(s.Files), MaxFiles)
	}
	var frontmatter bytes.Buffer
	if err := json.Compact(&frontmatter, s.Frontmatter); err != nil {
		return err
	}
	root := "skill://" + escapePath(s.Path)
	e := &entry{uri: root + "/SKILL.md", scopes: s.Scopes}
	if _, dup := c.byURI[runtime.NormalizeURI(e.uri)]; dup {
		return fmt.Errorf("%s is registered twice", e.uri)
	}
	seen := map[string]bool{}
	var manifest []skillResource
	dynamic, hasSkillMD := false, false
	var total int64
	for i := range s.Files {
		f := &s.Files[i]
		if f.Path == "" || path.IsAbs(f.Path) || path.Clean(f.Path) != f.Path || strings.HasPrefix(f.Path, "../") {
			return fmt.Errorf("file path %q is not a clean path inside the skill", f.Path)
		}
		if seen[f.Path] {
			return fmt.Errorf("file %s is listed twice", f.Path)
		}
		seen[f.Path] = true
		uri := root + "/" + escapePath(f.Path)
		def := resourceDef{URI: uri, Name: path.Base(f.Path), MIMEType: f.MIMEType}
		var handler runtime.ResourceHandler
		var cache *runtime.CacheHint
		if f.Read != nil {
			if f.Path == "SKILL.md" {
				return fmt.Errorf("SKILL.md cannot be dynamic: its frontmatter is the entry's")
			}
			dynamic = true
			handler = dynamicHandler(f.Read, f.MIMEType)
		} else {
			data, err := staticFile(s, f)
			if err != nil {
				return err
			}
			total += f.Size
			size := f.Size
			def.Size = &size
			manifest = append(manifest, skillResource{URI: uri, Digest: f.Digest, Size: f.Size})
			handler = staticHandler(data, def.MIMEType)
			if def.MIMEType == "" {
				def.MIMEType = contentMIMEType(data)
			}
			cache = c.hint(s.Scopes)
		}
		if f.Path == "SKILL.md" {
			hasSkillMD = true
			def.Name, def.Description = *fm.Name, *fm.Description
		}
		raw, err := json.Marshal(def)
		if err != nil {
			return err
		}
		c.resources = append(c.resources, runtime.Resource{URI: uri, Definition: raw, Handler: handler, Scopes: s.Scopes, Cache: cache})
		c.addToFolders(root, f.Path, raw, s.Scopes)
	}
	switch {
	case !hasSkillMD:
		return fmt.Errorf("no SKILL.md among its files")
	case total > MaxBytes:
		return fmt.Errorf("its files hold %d bytes; a skill may hold at most %d", total, MaxBytes)
	}
	var resources any = manifest
	if dynamic {
		resources = "dynamic"
	}
	raw, err := json.Marshal(struct {
		URI         string          `json:"uri"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   any             `json:"resources"`
	}{e.uri, frontmatter.Bytes(), resources})
	if err != nil {
		return err
	}
	e.json = raw
	c.entries = append(c.entries, e)
	c.byURI[runtime.NormalizeURI(e.uri)] = e
	return nil
}

// merge is a catalog of a's skills then b's (b built with the same
// Options): a skill, or a file of a folder, in both is an error.
func (a *catalog) merge(b *catalog) (*catalog, error) {
	c := &catalog{entries: append(slices.Clone(a.entries), b.entries...), byURI: maps.Clone(a.byURI), dirs: map[string]*dir{},
		pageSize: a.pageSize, cache: a.cache, private: a.private}
	for k, e := range b.byURI {
		if _, dup := c.byURI[k]; dup {
			return nil, fmt.Errorf("skill %s is registered twice", e.uri)
		}
		c.byURI[k] = e
	}
	for k, d := range a.dirs {
		c.dirs[k] = d
	}
	for k, d := range b.dirs {
		have := c.dirs[k]
		if have == nil {
			c.dirs[k] = d
			continue
		}
		both := &dir{scopes: have.scopes, children: slices.Concat(have.children, d.children)}
		sort.Slice(both.children, func(i, j int) bool { return both.children[i].name < both.children[j].name })
		for i := 1; i < len(both.children); i++ {
			if both.children[i].name == both.children[i-1].name {
				return nil, fmt.Errorf("folder %s has %s twice", k, both.children[i].name)
			}
		}
		c.dirs[k] = both
	}
	return c, nil
}

// staticFile reads a static file from the skill's FS and checks it against
// the size and digest the entry publishes: a file edited after the code
// was generated would fail every host's verification.
func staticFile(s *Skill, f *File) ([]byte, error) {
	if s.FS == nil {
		return nil, fmt.Errorf("file %s is static, but the skill has no FS", f.Path)
	}
	data, err := fs.ReadFile(s.FS, path.Join(s.Dir, f.Path))
	if err != nil {
		return nil, fmt.Errorf("file %s: %w", f.Path, err)
	}
	sum := sha256.Sum256(data)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	if int64(len(data)) != f.Size || digest != f.Digest {
		return nil, fmt.Errorf("file %s has %d bytes and digest %s, not the %d bytes and digest %s published for it "+
			"(it changed since the code was generated: regenerate, with go generate)", f.Path, len(data), digest, f.Size, f.Digest)
	}
	return data, nil
}

// addToFolders lists a file in its folder, and each folder in its parent,
// up to the skill's root.
func (c *catalog) addToFolders(root, file string, def json.RawMessage, scopes []string) {
	name := path.Base(file)
	for rel := path.Dir(file); ; rel = path.Dir(rel) {
		uri := root
		if rel != "." {
			uri += "/" + escapePath(rel)
		}
		d, known := c.dirs[runtime.NormalizeURI(uri)]
		if !known {
			d = &dir{scopes: scopes}
			c.dirs[runtime.NormalizeURI(uri)] = d
		}
		d.children = append(d.children, child{name: name, def: def})
		if known || rel == "." {
			return
		}
		// A new folder: list it in its parent.
		name = path.Base(rel)
		def, _ = json.Marshal(resourceDef{URI: uri, Name: name, MIMEType: directoryMIMEType})
	}
}

// hint is the cache hint of what a skill with these scopes shows: private
// when reading it depends on who asks.
func (c *catalog) hint(scopes []string) *runtime.CacheHint {
	if len(scopes) > 0 {
		return &c.private
	}
	return &c.cache
}

// escapePath percent-encodes each segment of a /-separated path for a URI.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// contentMIMEType is the mimeType of content whose file has none.
func contentMIMEType(data []byte) string {
	if utf8.Valid(data) {
		return "text/plain"
	}
	return "application/octet-stream"
}

// contents is a file's content as resources/read returns it: text when it
// is UTF-8, else a blob, so that the bytes a client hashes are the file's.
func contents(data []byte, mimeType string) runtime.ResourceContents {
	if mimeType == "" {
		mimeType = contentMIMEType(data)
	}
	if utf8.Valid(data) {
		return runtime.ResourceContents{MIMEType: mimeType, Text: string(data)}
	}
	return runtime.ResourceContents{MIMEType: mimeType, Blob: data}
}

func staticHandler(data []byte, mimeType string) runtime.ResourceHandler {
	c := contents(data, mimeType)
	return func(ctx context.Context, call *runtime.Call, uri string) (*runtime.ResourceResult, error) {
		return &runtime.ResourceResult{Contents: []runtime.ResourceContents{c}}, nil
	}
}

func dynamicHandler(read func(context.Context) ([]byte, error), mimeType string) runtime.ResourceHandler {
	return func(ctx context.Context, call *runtime.Call, uri string) (*runtime.ResourceResult, error) {
		data, err := read(ctx)
		if err != nil {
			return nil, err
		}
		return &runtime.ResourceResult{Contents: []runtime.ResourceContents{contents(data, mimeType)}}, nil
	}
}
