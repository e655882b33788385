// Package skills serves agent skills over MCP: the skills extension
// (io.modelcontextprotocol/skills, SEP-2640) on a runtime.Server.
//
// A skill is a folder holding a SKILL.md (YAML frontmatter with name and
// description, then instructions) and supporting files. Register publishes
// each file as a resource at skill://<skill-path>/<file-path>, read with
// resources/read and listed by resources/list, and adds the extension's
// methods through the runtime's extension seam: skills/list and skills/get,
// whose entries carry the frontmatter and the sha256 digest and size of
// every file, and resources/directory/read when Options.DirectoryRead is set.
//
// mcpgen generates the Skills from skill folders given to mcpgen generate,
// with the files embedded (go:embed) and their digests computed when the code
// was generated; the generated Register calls Register. Code without the
// generator fills in Skill by hand.
package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// ExtensionID identifies the skills extension in capabilities.extensions.
const ExtensionID = "io.modelcontextprotocol/skills"

// The limits of the specification: hosts must accept a skill of up to
// MaxFiles files (SKILL.md included) and MaxBytes in all; Register refuses a
// larger one, which no host is bound to load.
const (
	MaxFiles = 512
	MaxBytes = 16 << 20
)

// Skill is one skill.
type Skill struct {
	// Path locates the skill: its SKILL.md is skill://<Path>/SKILL.md. It is
	// one or more /-separated segments, the last of which is the skill's
	// name ("git-workflow", "acme/billing/refunds").
	Path string
	// Frontmatter is the SKILL.md's YAML frontmatter as a JSON object, with
	// name and description at least: what skills/list and skills/get show.
	Frontmatter json.RawMessage
	// FS holds the static files, under Dir ("." for its root).
	FS  fs.FS
	Dir string
	// Files are the skill's files, SKILL.md among them, each once.
	Files []File
	// Scopes are the OAuth scopes a caller's token must grant to get the
	// skill and read its files (checked when the server has Options.Auth);
	// with Auth.FilterLists, skills/list and resources/list hide the skill
	// from callers without them.
	Scopes []string
}

// File is one file of a skill: a static one (Read nil), served from the
// skill's FS and listed with its size and digest, or a dynamic one, whose
// content Read produces on every resources/read. A skill with a dynamic
// file has no stable digests: its entry's resources is "dynamic".
type File struct {
	// Path is the file's path in the skill folder, /-separated.
	Path string
	// MIMEType is the mimeType it is served with; "" leaves it to the
	// content: text/plain for UTF-8, application/octet-stream otherwise.
	MIMEType string
	// Size and Digest ("sha256:" and 64 lowercase hex digits) are those of a
	// static file's bytes; Register checks them against FS.
	Size   int64
	Digest string
	// Read produces a dynamic file's content.
	Read func(ctx context.Context) ([]byte, error)
}

// Options are the server-wide settings of the extension.
type Options struct {
	// DirectoryRead declares directoryRead and serves
	// resources/directory/read for the skill root and every folder in it.
	DirectoryRead bool
	// PageSize is the number of skills per skills/list page, and of
	// entries per resources/directory/read page; 0 means 50.
	PageSize int
	// Cache is the cache hint (2026-07-28) of skills/list, skills/get and
	// the reads of static files; nil means DefaultCache, or private with
	// the same TTL for what a skill with scopes makes depend on the caller.
	Cache *runtime.CacheHint
}

// DefaultCache is the cache hint when Options.Cache is nil: the files are
// fixed when the server is built, so clients may reuse what they fetched
// for five minutes.
var DefaultCache = runtime.CacheHint{TTL: 5 * time.Minute, Scope: runtime.CachePublic}

// defaultPageSize is the page size when Options.PageSize is 0.
const defaultPageSize = 50

// Register serves the skills on s: every file as a resource, and the
// extension's methods. It fails when a skill is malformed, when a static
// file's bytes differ from its published size and digest, or when a URI is
// taken; then nothing of skills is added. Register may run once per
// package that has skills (each generated package calls it): the skills
// of a later call join those of the first, served by the one extension,
// which needs the same Options every time.
func Register(s *runtime.Server, skills []Skill, opts Options) error {
	c, err := newCatalog(skills, opts)
	if err != nil {
		return err
	}
	reg, err := registered(s, opts)
	if err != nil {
		return err
	}
	merged := c
	if reg != nil {
		if merged, err = reg.current().merge(c); err != nil {
			return fmt.Errorf("skills: %w; nothing of these skills was added", err)
		}
	}
	taken := map[string]bool{}
	for _, def := range s.Describe().Resources {
		var r struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(def, &r) == nil {
			taken[runtime.NormalizeURI(r.URI)] = true
		}
	}
	for _, r := range c.resources {
		if taken[runtime.NormalizeURI(r.URI)] {
			return fmt.Errorf("skills: resource %q is already registered; nothing of these skills was added", r.URI)
		}
	}
	if reg == nil {
		reg = &registry{opts: optionsKey(opts)}
		reg.cat.Store(c)
		if err := s.AddExtension(reg.extension(opts)); err != nil {
			return fmt.Errorf("skills: %w", err)
		}
	}
	for _, r := range c.resources {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("skills: %w", err) // checked above: only a registration racing this one gets here
		}
	}
	reg.cat.Store(merged)
	return nil
}
