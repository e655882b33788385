package servercard

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Options are what the card says beyond what the server knows of itself.
type Options struct {
	// Name is the card's name, reverse-DNS with one slash
	// ("io.github.owner/weather"); required. It is the name the registry
	// lists the server under, which serverInfo.name ("weather") is not.
	Name string
	// Description says what the server does, 1 to 100 characters;
	// required.
	Description string
	// Title is a display name; empty means the server's Title.
	Title string
	// Version overrides the server's version; empty means serverInfo's.
	Version string
	// WebsiteURL is the server's homepage or documentation, absolute.
	WebsiteURL string
	// Repository is where the server's source is.
	Repository *Repository
	// Icons are images a client may show for the server.
	Icons []Icon
	// URL is the public URL of the server's Streamable HTTP endpoint
	// ("https://mcp.example.com/mcp"). Empty means the authorization's
	// resource URI when the server has one, else the URL the card was
	// requested at, less its path: behind a proxy that rewrites the host or
	// terminates TLS, set it.
	URL string
	// Headers are HTTP headers a client sends to the endpoint (an API key,
	// a region), listed on the card's remote.
	Headers []KeyValueInput
	// Meta are further members of the card's _meta, each a JSON value,
	// keyed by reverse-DNS prefix. The "mcpgen.dev/authorization" member
	// is the package's own.
	Meta map[string]json.RawMessage
	// Primitives says whether the legacy enumerating document lists the
	// server's tools, prompts, resources and templates (the card itself
	// never does). The zero value, PrimitivesAuto, lists them unless the
	// server requires authorization.
	Primitives Primitives
	// NoLegacy serves the card only where the extension reserves
	// (MCP path + "/server-card"), not at the .well-known paths earlier
	// revisions named.
	NoLegacy bool
	// MaxAge is the Cache-Control max-age of the card; 0 means 1h, what
	// the extension recommends. The legacy enumerating document, which
	// changes with the server's lists, is cached at most 1m.
	MaxAge time.Duration
}

// Primitives chooses whether the legacy document lists the primitives.
type Primitives int

const (
	// PrimitivesAuto lists them unless the server requires authorization:
	// what the endpoint hides behind a token, the public card does not
	// show.
	PrimitivesAuto Primitives = iota
	// PrimitivesListed lists them whatever the server's authorization,
	// unless its lists vary by principal.
	PrimitivesListed
	// PrimitivesOmitted never lists them.
	PrimitivesOmitted
)

// DefaultMaxAge is the card's Cache-Control max-age when Options.MaxAge is
// 0: the extension's recommendation.
const DefaultMaxAge = time.Hour

// legacyMaxAge bounds the legacy enumerating document's max-age: it lists
// tools, and a cache must not show a removed tool for long.
const legacyMaxAge = time.Minute

// metaAuthorization is the _meta member the card's authorization hint goes
// in: the extension defines no member for it yet.
const metaAuthorization = "mcpgen.dev/authorization"

var (
	// cardName is the schema's pattern, tightened as the registry tightens
	// it: each part starts and ends with a letter or digit.
	cardName = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?/[a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?$`)
	// metaKey is a _meta key: an optional prefix of dot-separated labels
	// and a slash, then a name.
	metaKey = regexp.MustCompile(`^([a-zA-Z]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*/)?([a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?)?$`)
	// versionRange matches what the schema calls a range: ^1.2, ~1, >=1,
	// 1.x, 1.*.
	versionRange = regexp.MustCompile(`^\s*(\^|~|[<>]=?|=)|(^|\.)[xX*](\.|$|-)|\|\||\s-\s`)
)

// ErrOptions wraps every problem Options.Validate reports.
var ErrOptions = errors.New("servercard: invalid options")

// Validate reports the first thing wrong with the options, naming the
// field: a card built from them would break the extension's schema.
func (o *Options) Validate() error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrOptions, field, fmt.Sprintf(format, args...))
	}
	if err := CheckName(o.Name); err != nil {
		return bad("Name", "%v", err)
	}
	if n := utf8.RuneCountInString(o.Description); n < 1 || n > 100 {
		return bad("Description", "needs 1 to 100 characters, has %d", n)
	}
	if n := utf8.RuneCountInString(o.Title); n > 100 {
		return bad("Title", "has %d characters, at most 100", n)
	}
	if o.Version != "" {
		if err := CheckVersion(o.Version); err != nil {
			return bad("Version", "%v", err)
		}
	}
	if o.WebsiteURL != "" {
		if err := checkAbsoluteURL(o.WebsiteURL, "http", "https"); err != nil {
			return bad("WebsiteURL", "%v", err)
		}
	}
	if r := o.Repository; r != nil {
		if err := checkAbsoluteURL(r.URL, "http", "https"); err != nil {
			return bad("Repository.URL", "%v", err)
		}
		if r.Source == "" {
			return bad("Repository.Source", `is required ("github", "gitlab")`)
		}
	}
	for i, ic := range o.Icons {
		if err := checkAbsoluteURL(ic.Src, "https", "data"); err != nil {
			return bad(fmt.Sprintf("Icons[%d].Src", i), "%v", err)
		}
		if ic.Theme != "" && ic.Theme != "light" && ic.Theme != "dark" {
			return bad(fmt.Sprintf("Icons[%d].Theme", i), `is %q; use "light", "dark" or nothing`, ic.Theme)
		}
	}
	if o.URL != "" {
		if err := checkEndpointURL(o.URL); err != nil {
			return bad("URL", "%v", err)
		}
	}
	for i, h := range o.Headers {
		if h.Name == "" {
			return bad(fmt.Sprintf("Headers[%d].Name", i), "is required")
		}
		if h.Format != "" && !strings.Contains(" string number boolean filepath ", " "+h.Format+" ") {
			return bad(fmt.Sprintf("Headers[%d].Format", i), `is %q; use "string", "number", "boolean" or "filepath"`, h.Format)
		}
	}
	for k, v := range o.Meta {
		if !metaKey.MatchString(k) {
			return bad(fmt.Sprintf("Meta[%q]", k), "is not a _meta key (a reverse-DNS prefix, a slash and a name)")
		}
		if k == metaAuthorization {
			return bad(fmt.Sprintf("Meta[%q]", k), "is the package's own member, filled from the server's authorization")
		}
		if !json.Valid(v) {
			return bad(fmt.Sprintf("Meta[%q]", k), "is not JSON")
		}
	}
	if o.Primitives < PrimitivesAuto || o.Primitives > PrimitivesOmitted {
		return bad("Primitives", "is %d, not one of the Primitives constants", o.Primitives)
	}
	if o.MaxAge < 0 {
		return bad("MaxAge", "is negative")
	}
	return nil
}

// CheckName reports whether name is a valid card (and registry) name:
// reverse-DNS namespace, one slash, a name; 3 to 200 characters.
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New(`is required, e.g. "io.github.owner/weather"`)
	case len(name) < 3 || len(name) > 200:
		return fmt.Errorf("%q has %d characters; a name has 3 to 200", name, len(name))
	case strings.Count(name, "/") != 1:
		return fmt.Errorf("%q needs exactly one slash between a reverse-DNS namespace and a name, e.g. \"io.github.owner/weather\"", name)
	case !cardName.MatchString(name):
		return fmt.Errorf("%q: the namespace may hold letters, digits, dots and hyphens, the name also underscores, each starting and ending with a letter or digit", name)
	}
	return nil
}

// CheckVersion reports whether v is a version a card or the registry
// accepts: at most 255 characters, not "latest", not a range.
func CheckVersion(v string) error {
	switch {
	case strings.TrimSpace(v) == "":
		return errors.New("is empty")
	case len(v) > 255:
		return fmt.Errorf("has %d characters, at most 255", len(v))
	case v == "latest":
		return errors.New(`"latest" is reserved; give the version itself, e.g. "1.0.2"`)
	case versionRange.MatchString(v):
		return fmt.Errorf("%q looks like a range; give one version, e.g. \"1.0.2\"", v)
	}
	return nil
}

// checkAbsoluteURL reports whether s is an absolute URL of one of schemes.
func checkAbsoluteURL(s string, schemes ...string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", s, err)
	}
	for _, sc := range schemes {
		if u.Scheme == sc && (u.Host != "" || sc == "data") {
			return nil
		}
	}
	return fmt.Errorf("%q is not an absolute %s URL", s, strings.Join(schemes, " or "))
}

// checkEndpointURL reports whether s can be a remote's URL: http or https,
// a host, no query or fragment (the card's location is derived from its
// path).
func checkEndpointURL(s string) error {
	if err := checkAbsoluteURL(s, "http", "https"); err != nil {
		return err
	}
	u, _ := url.Parse(s)
	if u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(s, " \t\r\n") {
		return fmt.Errorf("%q has a query, a fragment or a space; give the endpoint's URL alone", s)
	}
	return nil
}
