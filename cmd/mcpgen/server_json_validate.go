package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpgen/mcpgen/ext/servercard"
)

// registrySchemaURL is the server.json schema version mcpgen writes: the
// MCP registry's current one.
const registrySchemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// registrySchema is that schema as the registry validates with it: the
// copy the registry's Go module (github.com/modelcontextprotocol/registry
// v1.8.9, internal/validators/schemas/2025-12-11.json) embeds.
//
//go:embed schemas/registry-server.schema.json
var registrySchema []byte

var (
	compiledOnce   sync.Once
	compiledSchema *jsonschema.Schema
	compileErr     error
)

// serverJSONIssue is one problem of a server.json, at a JSON pointer.
type serverJSONIssue struct {
	at  string // "/remotes/0/url"; "" for the document
	msg string
}

func (i serverJSONIssue) String() string {
	if i.at == "" {
		return i.msg
	}
	return i.at + ": " + i.msg
}

// validateServerJSON checks doc against the registry's schema and the
// rules the registry adds when it validates or publishes (name, version,
// repository, URLs, packages), and returns every problem found.
func validateServerJSON(doc []byte) ([]serverJSONIssue, error) {
	compiledOnce.Do(func() {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft7
		c.AssertFormat = true
		if compileErr = c.AddResource(registrySchemaURL, bytes.NewReader(registrySchema)); compileErr == nil {
			compiledSchema, compileErr = c.Compile(registrySchemaURL)
		}
	})
	if compileErr != nil {
		return nil, fmt.Errorf("the embedded registry schema: %w", compileErr)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	var issues []serverJSONIssue
	if err := compiledSchema.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
		issues = append(issues, schemaIssues(ve)...)
	}
	var s registryServer
	if err := json.Unmarshal(doc, &s); err != nil {
		// The schema already said what is wrong with the members' types.
		return issues, nil
	}
	// A member the schema refused is not reported twice.
	for _, is := range s.semanticIssues() {
		if !slices.ContainsFunc(issues, func(o serverJSONIssue) bool { return o.at == is.at }) {
			issues = append(issues, is)
		}
	}
	return issues, nil
}

// schemaIssues flattens a validation error to its leaves: the innermost
// causes are the ones that name a field.
func schemaIssues(ve *jsonschema.ValidationError) []serverJSONIssue {
	if len(ve.Causes) == 0 {
		return []serverJSONIssue{{at: ve.InstanceLocation, msg: ve.Message}}
	}
	var out []serverJSONIssue
	for _, c := range ve.Causes {
		for _, i := range schemaIssues(c) {
			if !slices.Contains(out, i) {
				out = append(out, i)
			}
		}
	}
	return out
}

// registryServer is what the semantic rules read of a server.json.
type registryServer struct {
	Schema     string                     `json:"$schema"`
	Name       string                     `json:"name"`
	Version    string                     `json:"version"`
	Title      string                     `json:"title"`
	WebsiteURL string                     `json:"websiteUrl"`
	Repository *servercard.Repository     `json:"repository"`
	Icons      []servercard.Icon          `json:"icons"`
	Remotes    []registryRemote           `json:"remotes"`
	Packages   []registryPackage          `json:"packages"`
	Meta       map[string]json.RawMessage `json:"_meta"`
}

type registryRemote struct {
	Type      string         `json:"type"`
	URL       string         `json:"url"`
	Variables map[string]any `json:"variables"`
}

type registryPackage struct {
	RegistryType    string `json:"registryType"`
	RegistryBaseURL string `json:"registryBaseUrl"`
	Identifier      string `json:"identifier"`
	Version         string `json:"version"`
	FileSHA256      string `json:"fileSha256"`
}

var (
	githubRepoURL = regexp.MustCompile(`^https?://(www\.)?github\.com/[\w.-]+/[\w.-]+/?$`)
	gitlabRepoURL = regexp.MustCompile(`^https?://(www\.)?gitlab\.com/[\w.-]+(/[\w.-]+)+/?$`)
	cleanSubpath  = regexp.MustCompile(`^[a-zA-Z0-9_.-]+(/[a-zA-Z0-9_.-]+)*$`)
	templateVar   = regexp.MustCompile(`\{([^}]+)\}`)
	// registryBases are the package registries the official registry
	// accepts, by registryType.
	registryBases = map[string][]string{
		"npm":   {"https://registry.npmjs.org"},
		"pypi":  {"https://pypi.org"},
		"nuget": {"https://api.nuget.org/v3/index.json", "https://api.nuget.org"},
	}
)

// semanticIssues are the registry's rules beyond the schema.
func (s *registryServer) semanticIssues() []serverJSONIssue {
	var out []serverJSONIssue
	add := func(at, format string, args ...any) {
		out = append(out, serverJSONIssue{at: at, msg: fmt.Sprintf(format, args...)})
	}
	if s.Schema != registrySchemaURL {
		add("/$schema", "is %q; mcpgen writes and checks %s", s.Schema, registrySchemaURL)
	}
	if err := servercard.CheckName(s.Name); err != nil {
		add("/name", "%v", err)
	}
	if err := servercard.CheckVersion(s.Version); err != nil {
		add("/version", "%v", err)
	}
	if s.Title != "" && strings.TrimSpace(s.Title) == "" {
		add("/title", "is only whitespace")
	}
	if s.WebsiteURL != "" {
		if u, err := url.Parse(s.WebsiteURL); err != nil || u.Scheme != "https" || u.Host == "" || strings.ContainsAny(s.WebsiteURL, "\"'<> \t\r\n") {
			add("/websiteUrl", "%q is not an absolute https URL", s.WebsiteURL)
		}
	}
	if r := s.Repository; r != nil {
		switch {
		case r.Source == "github" && !githubRepoURL.MatchString(r.URL):
			add("/repository/url", "%q is not a GitHub repository URL (https://github.com/OWNER/REPO)", r.URL)
		case r.Source == "gitlab" && (!gitlabRepoURL.MatchString(r.URL) || strings.Contains(r.URL+"/", "/-/")):
			add("/repository/url", "%q is not a GitLab project URL (https://gitlab.com/GROUP/PROJECT)", r.URL)
		case r.Source != "github" && r.Source != "gitlab" && r.Source != "":
			add("/repository/source", "is %q; the registry checks repositories of \"github\" and \"gitlab\"", r.Source)
		}
		if r.Subfolder != "" && (!cleanSubpath.MatchString(r.Subfolder) || slices.Contains(strings.Split(r.Subfolder, "/"), "..") || slices.Contains(strings.Split(r.Subfolder, "/"), ".")) {
			add("/repository/subfolder", "%q is not a clean relative path", r.Subfolder)
		}
	}
	for i, ic := range s.Icons {
		if u, err := url.Parse(ic.Src); err != nil || u.Scheme != "https" || u.Host == "" {
			add(fmt.Sprintf("/icons/%d/src", i), "%q is not an absolute https URL", ic.Src)
		}
	}
	for i, r := range s.Remotes {
		at := fmt.Sprintf("/remotes/%d/url", i)
		for _, m := range templateVar.FindAllStringSubmatch(r.URL, -1) {
			if _, ok := r.Variables[m[1]]; !ok {
				add(at, "uses {%s}, which the remote's variables do not define", m[1])
			}
		}
		u, err := url.Parse(templateVar.ReplaceAllString(r.URL, "placeholder"))
		switch {
		case err != nil || u.Host == "":
			add(at, "%q is not an absolute URL", r.URL)
		case u.Scheme != "https":
			add(at, "%q: the registry lists https endpoints only", r.URL)
		case u.Hostname() == "localhost" || u.Hostname() == "127.0.0.1" || u.Hostname() == "::1" || strings.HasSuffix(u.Hostname(), ".localhost"):
			add(at, "%q is this machine: the registry lists endpoints others can reach", r.URL)
		}
	}
	for i, p := range s.Packages {
		at := fmt.Sprintf("/packages/%d", i)
		if strings.Contains(p.Identifier, " ") {
			add(at+"/identifier", "%q has a space", p.Identifier)
		}
		if p.Version != "" {
			if err := servercard.CheckVersion(p.Version); err != nil {
				add(at+"/version", "%v", err)
			}
		}
		switch p.RegistryType {
		case "npm", "pypi", "nuget":
			if p.Version == "" {
				add(at+"/version", "a %s package needs its version", p.RegistryType)
			}
			if p.RegistryBaseURL != "" && !slices.Contains(registryBases[p.RegistryType], p.RegistryBaseURL) {
				add(at+"/registryBaseUrl", "%q: the registry accepts %s packages from %s only", p.RegistryBaseURL, p.RegistryType, strings.Join(registryBases[p.RegistryType], " or "))
			}
		case "mcpb":
			if p.FileSHA256 == "" {
				add(at+"/fileSha256", "an mcpb package needs the SHA-256 of its file")
			}
			if u, err := url.Parse(p.Identifier); err != nil || u.Scheme != "https" || (u.Host != "github.com" && u.Host != "gitlab.com") {
				add(at+"/identifier", "%q: an mcpb package is the https URL of a GitHub or GitLab release file", p.Identifier)
			}
		case "oci":
			if !strings.Contains(lastPathElem(p.Identifier), ":") && !strings.Contains(p.Identifier, "@sha256:") {
				add(at+"/identifier", "%q names no tag or digest (ghcr.io/OWNER/IMAGE:1.0.0)", p.Identifier)
			}
		}
	}
	for k := range s.Meta {
		if k != "io.modelcontextprotocol.registry/publisher-provided" {
			add("/_meta/"+pointerEscape(k), "the registry keeps only io.modelcontextprotocol.registry/publisher-provided and drops the rest")
		}
	}
	if raw, ok := s.Meta["io.modelcontextprotocol.registry/publisher-provided"]; ok && len(raw) > 4096 {
		add("/_meta/"+pointerEscape("io.modelcontextprotocol.registry/publisher-provided"), "has %d bytes of JSON, at most 4096", len(raw))
	}
	return out
}

func lastPathElem(s string) string {
	return s[strings.LastIndex(s, "/")+1:]
}

// pointerEscape escapes a member name for a JSON pointer (RFC 6901).
func pointerEscape(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}
