package servercard

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The paths a card is served at besides the reserved one (MCP path +
// PathSuffix). Earlier revisions of SEP-2127, and the SEP-1649 deployments
// before them, named .well-known locations that clients and crawlers still
// probe; the card is served there too unless Options.NoLegacy.
const (
	// WellKnownCardPath is where the June 2026 revision put the card (the
	// same document, as application/json).
	WellKnownCardPath = "/.well-known/mcp-server-card"
	// WellKnownLegacyPath and WellKnownLegacyJSONPath are where the January
	// 2026 revision and SEP-1649 put it: the enumerating document
	// (capabilities, and the primitives per Options.Primitives).
	WellKnownLegacyPath     = "/.well-known/mcp/server-card"
	WellKnownLegacyJSONPath = "/.well-known/mcp/server-card.json"
)

// maxCachedDocuments bounds the documents kept between changes: one per
// kind and origin. Only a card without a fixed URL has several origins (one
// per Host it is asked under); past the bound the cache starts over.
const maxCachedDocuments = 32

// preflightMaxAge is how long a browser may reuse a preflight's answer.
const preflightMaxAge = 24 * time.Hour

// Cards serves the card of one server. Each document is built when first
// asked for and kept, bytes and ETag, until the source says the server
// changed: a request between changes costs a map lookup.
type Cards struct {
	src      Source
	opts     Options
	mcpPath  string
	endpoint string // the fixed endpoint URL; "" derives it from each request

	mu    sync.Mutex
	gen   uint64 // counts the source's changes
	cache map[docKey]*document
}

type docKind int

const (
	kindCard   docKind = iota // the card (the reserved path, and the June revision's)
	kindLegacy                // the enumerating document of the legacy paths
)

type docKey struct {
	kind   docKind
	origin string // scheme://host the endpoint was derived from; "" when fixed
}

// document is one built document.
type document struct {
	body []byte
	etag string // strong: a digest of body
}

// New returns the cards of the server src describes, whose Streamable HTTP
// endpoint is at mcpPath ("" means "/mcp"). It checks opts and builds the
// card once, so that what would make every request fail (an invalid option,
// a server version the schema refuses) fails here instead.
func New(src Source, opts Options, mcpPath string) (*Cards, error) {
	if src == nil {
		return nil, fmt.Errorf("%w: a Source is required", ErrOptions)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if mcpPath == "" {
		mcpPath = "/mcp"
	}
	if !strings.HasPrefix(mcpPath, "/") || strings.ContainsAny(mcpPath, "?#{} ") {
		return nil, fmt.Errorf("%w: the MCP path %q is not an absolute path", ErrOptions, mcpPath)
	}
	c := &Cards{src: src, opts: opts, mcpPath: mcpPath, cache: map[docKey]*document{}}
	d := src.Describe()
	c.endpoint = opts.URL
	if c.endpoint == "" && d.Auth != nil && d.Auth.Resource != "" {
		c.endpoint = d.Auth.Resource
	}
	probe := firstOf(c.endpoint, "http://localhost"+mcpPath)
	if _, err := Build(d, opts, probe); err != nil {
		return nil, err
	}
	if _, err := BuildLegacy(d, opts, probe); err != nil {
		return nil, err
	}
	src.OnChange(c.changed)
	return c, nil
}

// Routes are the card's handlers by path, http.ServeMux patterns to mount
// beside the MCP endpoint: the reserved location and, unless
// Options.NoLegacy, the .well-known ones. Each answers GET, HEAD and the
// CORS preflight (OPTIONS) and refuses other methods with 405.
func (c *Cards) Routes() map[string]http.Handler {
	card := &handler{c: c, kind: kindCard, contentType: MediaType, maxAge: c.maxAge()}
	// The earlier revisions required application/json.
	wellKnown := &handler{c: c, kind: kindCard, contentType: "application/json", maxAge: c.maxAge()}
	legacy := &handler{c: c, kind: kindLegacy, contentType: "application/json", maxAge: min(c.maxAge(), legacyMaxAge), revalidate: true}
	routes := map[string]http.Handler{}
	for _, p := range Paths(c.opts, c.mcpPath) {
		switch p {
		case WellKnownCardPath:
			routes[p] = wellKnown
		case WellKnownLegacyPath, WellKnownLegacyJSONPath:
			routes[p] = legacy
		default:
			routes[p] = card
		}
	}
	return routes
}

// Paths are the paths Routes serves for opts and an MCP endpoint at
// mcpPath ("" means "/mcp"): the reserved one first, then, unless
// Options.NoLegacy, the .well-known ones.
func Paths(opts Options, mcpPath string) []string {
	if mcpPath == "" {
		mcpPath = DefaultMCPPath
	}
	paths := []string{CardPath(mcpPath)}
	if !opts.NoLegacy {
		paths = append(paths, WellKnownCardPath, WellKnownLegacyPath, WellKnownLegacyJSONPath)
	}
	return paths
}

func (c *Cards) maxAge() time.Duration {
	if c.opts.MaxAge == 0 {
		return DefaultMaxAge
	}
	return c.opts.MaxAge
}

// changed drops every built document: the next request builds anew.
func (c *Cards) changed() {
	c.mu.Lock()
	c.gen++
	clear(c.cache)
	c.mu.Unlock()
}

// document returns the document of kind for r, built now or kept from an
// earlier request since the last change.
func (c *Cards) document(kind docKind, r *http.Request) (*document, error) {
	key := docKey{kind: kind}
	endpoint := c.endpoint
	if endpoint == "" {
		key.origin = requestOrigin(r)
		endpoint = key.origin + c.mcpPath
	}
	c.mu.Lock()
	doc, ok := c.cache[key]
	gen := c.gen // read before Describe: a change after it must not be cached over
	c.mu.Unlock()
	if ok {
		return doc, nil
	}
	d := c.src.Describe()
	var body []byte
	var err error
	if kind == kindLegacy {
		body, err = BuildLegacy(d, c.opts, endpoint)
	} else {
		var card Card
		if card, err = Build(d, c.opts, endpoint); err == nil {
			body, err = json.Marshal(card)
		}
	}
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	doc = &document{body: body, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
	c.mu.Lock()
	if gen == c.gen {
		if len(c.cache) >= maxCachedDocuments {
			clear(c.cache)
		}
		c.cache[key] = doc
	}
	c.mu.Unlock()
	return doc, nil
}

// requestOrigin is scheme://host of the URL r was sent to. net/http has
// already refused a malformed Host.
func requestOrigin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + strings.ToLower(r.Host)
}

// handler serves one document at one path.
type handler struct {
	c           *Cards
	kind        docKind
	contentType string
	maxAge      time.Duration
	revalidate  bool // must-revalidate: the document changes with the lists
}

// allowedMethods are the methods a card path answers.
const allowedMethods = "GET, HEAD, OPTIONS"

// ServeHTTP answers GET and HEAD with the document (304 when If-None-Match
// names its ETag), OPTIONS with the CORS preflight, anything else with 405.
// The card is public and the same for every Origin, Accept and encoding,
// so its CORS headers are constant and it carries no Vary: a shared cache
// keeps one copy per URL.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodOptions:
		hd.Set("Allow", allowedMethods)
		hd.Set("Access-Control-Allow-Methods", allowedMethods)
		// If-None-Match is not CORS-safelisted: a browser revalidating
		// with the ETag preflights for it.
		hd.Set("Access-Control-Allow-Headers", "Content-Type, If-None-Match")
		hd.Set("Access-Control-Max-Age", strconv.Itoa(int(preflightMaxAge/time.Second)))
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodGet, http.MethodHead:
	default:
		hd.Set("Allow", allowedMethods)
		http.Error(w, "a server card answers GET, HEAD and OPTIONS", http.StatusMethodNotAllowed)
		return
	}
	doc, err := h.c.document(h.kind, r)
	if err != nil {
		// Only a Source that changed its server's version to one the
		// schema refuses gets here (New checked the rest); nothing of the
		// error reaches the client.
		http.Error(w, "the server card cannot be built", http.StatusInternalServerError)
		return
	}
	cache := "public, max-age=" + strconv.Itoa(int(h.maxAge/time.Second))
	if h.revalidate {
		cache += ", must-revalidate"
	}
	hd.Set("Cache-Control", cache)
	hd.Set("ETag", doc.etag)
	hd.Set("Access-Control-Expose-Headers", "ETag")
	if noneMatch(r.Header.Values("If-None-Match"), doc.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd.Set("Content-Type", h.contentType)
	hd.Set("Content-Length", strconv.Itoa(len(doc.body)))
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(doc.body)
	}
}

// noneMatch reports whether an If-None-Match header (its field lines) names
// etag or is "*". RFC 9110 section 13.1.2 compares weakly: W/"x" matches "x".
func noneMatch(lines []string, etag string) bool {
	for _, line := range lines {
		for tag := range strings.SplitSeq(line, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
				return true
			}
		}
	}
	return false
}
