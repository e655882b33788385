package servercard

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// Build returns the card of the server d describes, reached at endpoint
// (the absolute URL of its Streamable HTTP endpoint; "" lists no remote),
// with what opts adds. opts must be valid (Options.Validate).
func Build(d Description, opts Options, endpoint string) (Card, error) {
	c := Card{
		Schema:      SchemaURL,
		Name:        opts.Name,
		Version:     firstOf(opts.Version, d.Version),
		Description: opts.Description,
		Title:       firstOf(opts.Title, d.Title),
		WebsiteURL:  opts.WebsiteURL,
		Icons:       slices.Clone(opts.Icons),
	}
	if err := CheckVersion(c.Version); err != nil {
		return Card{}, fmt.Errorf("servercard: the server's version %w; set Options.Version", err)
	}
	if len([]rune(c.Title)) > 100 {
		return Card{}, fmt.Errorf("servercard: the server's title has more than 100 characters; set Options.Title")
	}
	if r := opts.Repository; r != nil {
		rc := *r
		c.Repository = &rc
	}
	if endpoint != "" {
		c.Remotes = []Remote{{
			Type:                      "streamable-http",
			URL:                       endpoint,
			Headers:                   slices.Clone(opts.Headers),
			SupportedProtocolVersions: slices.Sorted(slices.Values(d.Versions)), // oldest first, whatever the order given
		}}
	}
	meta := maps.Clone(opts.Meta)
	if a := d.Auth; a != nil {
		hint, err := authorizationHint(a, endpoint)
		if err != nil {
			return Card{}, err
		}
		if meta == nil {
			meta = map[string]json.RawMessage{}
		}
		meta[metaAuthorization] = hint
	}
	c.Meta = meta
	return c, nil
}

// authorizationHint is the card's _meta member for an OAuth-protected
// server: where its Protected Resource Metadata is and which issuers it
// trusts, so a client knows before connecting that it needs a token, and
// from whom. A client still learns it authoritatively from the 401 and the
// metadata (RFC 9728); the extension defines no field for it yet.
func authorizationHint(a *Auth, endpoint string) (json.RawMessage, error) {
	hint := struct {
		Resource             string   `json:"resource"`
		ResourceMetadata     string   `json:"resourceMetadata,omitempty"`
		AuthorizationServers []string `json:"authorizationServers"`
		ScopesSupported      []string `json:"scopesSupported,omitempty"`
	}{Resource: a.Resource, AuthorizationServers: a.AuthorizationServers, ScopesSupported: a.ScopesSupported}
	if a.MetadataPath != "" {
		base := firstOf(a.Resource, endpoint)
		if u, err := url.Parse(base); err == nil && u.Host != "" {
			hint.ResourceMetadata = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: a.MetadataPath}).String()
		}
	}
	return json.Marshal(hint)
}

// legacyDocument is the card as the first revision of SEP-2127 (January
// 2026) and the SEP-1649 deployments before it served it at
// /.well-known/mcp/server-card(.json): the same members, plus the server's
// capabilities and, unless withheld, its primitives. Readers that still look
// there (scanners, registries' crawlers) get what they expect; the schema's
// objects are open, so it is a valid card too.
type legacyDocument struct {
	Card
	// Remotes shadows the card's: that revision's remotes say whether
	// they need authentication.
	Remotes           []legacyRemote    `json:"remotes,omitempty"`
	Capabilities      json.RawMessage   `json:"capabilities,omitempty"`
	Tools             []json.RawMessage `json:"tools,omitempty"`
	Prompts           []json.RawMessage `json:"prompts,omitempty"`
	Resources         []json.RawMessage `json:"resources,omitempty"`
	ResourceTemplates []json.RawMessage `json:"resourceTemplates,omitempty"`
}

// legacyRemote is a Remote with that revision's authentication member.
type legacyRemote struct {
	Remote
	Authentication *legacyAuthentication `json:"authentication,omitempty"`
}

type legacyAuthentication struct {
	Required bool     `json:"required"`
	Schemes  []string `json:"schemes"`
}

// BuildLegacy returns the legacy enumerating document of the server d
// describes (see Options.Primitives for when it lists primitives).
func BuildLegacy(d Description, opts Options, endpoint string) (json.RawMessage, error) {
	card, err := Build(d, opts, endpoint)
	if err != nil {
		return nil, err
	}
	doc := legacyDocument{Card: card, Capabilities: d.Capabilities[newestVersion(d.Versions)]}
	for _, r := range card.Remotes {
		lr := legacyRemote{Remote: r}
		if d.Auth != nil {
			lr.Authentication = &legacyAuthentication{Required: true, Schemes: []string{"oauth2", "bearer"}}
		}
		doc.Remotes = append(doc.Remotes, lr)
	}
	if listPrimitives(d, opts) {
		doc.Tools, doc.Prompts, doc.Resources, doc.ResourceTemplates = d.Tools, d.Prompts, d.Resources, d.ResourceTemplates
	}
	return json.Marshal(doc)
}

// listPrimitives says whether the legacy document lists the primitives.
func listPrimitives(d Description, opts Options) bool {
	if d.Auth != nil && d.Auth.ListsVaryByPrincipal {
		return false // no one list is true for every caller
	}
	switch opts.Primitives {
	case PrimitivesListed:
		return true
	case PrimitivesOmitted:
		return false
	default:
		return d.Auth == nil
	}
}

// CardURL is where the extension reserves a card's location for the
// Streamable HTTP endpoint at endpoint: its path plus PathSuffix, with a
// single trailing slash dropped and no query.
func CardURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("servercard: %q is not an absolute URL", endpoint)
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: CardPath(u.Path)}).String(), nil
}

// CardPath is the card's path for an MCP endpoint at mcpPath ("/mcp"
// gives "/mcp/server-card"; "/" or "" gives "/server-card").
func CardPath(mcpPath string) string {
	p := strings.TrimSuffix(mcpPath, "/")
	if p != "" && !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p + PathSuffix
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
