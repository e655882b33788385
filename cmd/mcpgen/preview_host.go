package main

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"
)

// The preview's HTTP side: the host page (apphost/, embedded), the
// argument check, and /mcp forwarded to the server, so that the page's MCP
// client talks to the server on the page's own origin.

// apphost holds the host page: index.html, host.js (the source) and
// host.bundle.js, host.js bundled with the ext-apps AppBridge and the
// TypeScript client SDK by apptest/bundle.mjs (which checks in CI that the
// bundle is up to date), with the notices of what it bundles.
//
//go:embed apphost/index.html apphost/host.bundle.js apphost/NOTICES.txt
var apphost embed.FS

const (
	// previewMaxBody bounds a request body the page sends, forwarded or checked.
	previewMaxBody = 16 << 20
	// previewDialTimeout bounds connecting to the server.
	previewDialTimeout = 10 * time.Second
	// previewHeaderTimeout bounds the wait for the server's response headers
	// (a server answering JSON holds them until the call ends; the page's
	// client gives up on a call first, after 60 s without progress).
	previewHeaderTimeout = 5 * time.Minute
	// probeDeleteTimeout bounds the DELETE that ends the probe's session.
	probeDeleteTimeout = 5 * time.Second
)

// previewHost serves the host page for one server.
type previewHost struct {
	upstream *url.URL
	summary  *serverSummary
	proxy    *httputil.ReverseProxy
	files    map[string]staticFile
}

type staticFile struct {
	name, contentType string
}

// newPreviewHost returns the handler of the host page for the server at
// upstream; headers go on every request to it (--header). Errors reaching
// the server are logged to logw.
func newPreviewHost(upstream *url.URL, headers http.Header, summary *serverSummary, transport http.RoundTripper, logw io.Writer) *previewHost {
	h := &previewHost{upstream: upstream, summary: summary, files: map[string]staticFile{
		"/":             {"apphost/index.html", "text/html; charset=utf-8"},
		"/index.html":   {"apphost/index.html", "text/html; charset=utf-8"},
		"/host.js":      {"apphost/host.bundle.js", "text/javascript; charset=utf-8"},
		"/licenses.txt": {"apphost/NOTICES.txt", "text/plain; charset=utf-8"},
	}}
	h.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			u := *upstream
			pr.Out.URL = &u
			pr.Out.Host = ""
			// The request is the preview's own to the server: the browser's
			// origin, its cookies for this loopback host (cookies ignore the
			// port, so other local apps' too) and its referrer stay here.
			for _, k := range []string{"Origin", "Referer", "Cookie", "Sec-Fetch-Site", "Sec-Fetch-Mode", "Sec-Fetch-Dest"} {
				pr.Out.Header.Del(k)
			}
			for k, vs := range headers {
				pr.Out.Header[k] = vs
			}
		},
		// Every event of a stream goes to the page as it arrives.
		FlushInterval: -1,
		Transport:     transport,
		ModifyResponse: func(r *http.Response) error {
			r.Header.Del("Set-Cookie")
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				return // the page went away, or the preview stops
			}
			if tooLarge(err) {
				http.Error(w, fmt.Sprintf("mcpgen preview: the request is larger than %d MiB", previewMaxBody>>20), http.StatusRequestEntityTooLarge)
				return
			}
			fmt.Fprintf(logw, "mcpgen preview: %s %s: %v\n", r.Method, upstream.Redacted(), err)
			http.Error(w, fmt.Sprintf("mcpgen preview: the server at %s did not answer: %v", upstream.Redacted(), err), http.StatusBadGateway)
		},
	}
	return h
}

// previewTransport is how the preview reaches the server: bounded dials
// and waits, and no proxy from the environment (a loopback server must
// not be reached through one).
func previewTransport() *http.Transport {
	return &http.Transport{
		DialContext:           (&net.Dialer{Timeout: previewDialTimeout}).DialContext,
		TLSHandshakeTimeout:   previewDialTimeout,
		ResponseHeaderTimeout: previewHeaderTimeout,
		IdleConnTimeout:       time.Minute,
		MaxIdleConnsPerHost:   8,
	}
}

func (h *previewHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) {
		// A page of another site that got a name resolving to 127.0.0.1
		// (DNS rebinding) must not reach the server through the preview.
		http.Error(w, fmt.Sprintf("mcpgen preview answers requests for its loopback address only, not for Host %q", r.Host), http.StatusMisdirectedRequest)
		return
	}
	switch r.URL.Path {
	case "/mcp":
		if !h.sameOrigin(w, r) {
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, previewMaxBody)
		h.proxy.ServeHTTP(w, r)
	case "/check":
		if !h.sameOrigin(w, r) {
			return
		}
		h.check(w, r)
	case "/preview.json":
		h.describe(w, r)
	default:
		h.static(w, r)
	}
}

// sameOrigin refuses a request sent by a page of another origin: only the
// host page may call the server through the preview (and with the
// --header token).
func (h *previewHost) sameOrigin(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || origin == "http://"+r.Host {
		return true
	}
	http.Error(w, fmt.Sprintf("mcpgen preview: a page of %s may not call the server through the preview", origin), http.StatusForbidden)
	return false
}

func (h *previewHost) static(w http.ResponseWriter, r *http.Request) {
	f, ok := h.files[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	b, err := apphost.ReadFile(f.name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", f.contentType)
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	// The host page is never framed. It has no Content-Security-Policy of
	// its own: the page it renders in a srcdoc iframe would inherit it, and
	// that page's policy is the one its _meta.ui.csp declares.
	hd.Set("X-Frame-Options", "DENY")
	if r.Method == http.MethodHead {
		return
	}
	w.Write(b)
}

// describe tells the page which server it previews and in which era to start.
func (h *previewHost) describe(w http.ResponseWriter, r *http.Request) {
	s := h.summary
	writeJSON(w, map[string]any{
		"server": h.upstream.Redacted(), "name": s.name, "version": s.version,
		"versions": s.versions, "era": s.era(), "apps": s.apps,
	})
}

// check validates the arguments the user typed against the tool's
// inputSchema, both sent by the page: {"schema": ..., "arguments": ...}.
// It answers {"problems": [...]}, empty when they are valid, or
// {"schemaError": "..."} when the schema itself does not compile.
func (h *previewHost) check(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var in struct {
		Schema    json.RawMessage `json:"schema"`
		Arguments json.RawMessage `json:"arguments"`
	}
	err := json.NewDecoder(http.MaxBytesReader(w, r.Body, previewMaxBody)).Decode(&in)
	if tooLarge(err) {
		http.Error(w, fmt.Sprintf("mcpgen preview: the request is larger than %d MiB", previewMaxBody>>20), http.StatusRequestEntityTooLarge)
		return
	}
	if err != nil || len(in.Schema) == 0 || len(in.Arguments) == 0 {
		http.Error(w, fmt.Sprintf(`want {"schema": ..., "arguments": ...} (%v)`, err), http.StatusBadRequest)
		return
	}
	problems, err := checkArguments(in.Schema, in.Arguments)
	if err != nil {
		writeJSON(w, map[string]any{"schemaError": err.Error()})
		return
	}
	writeJSON(w, map[string]any{"problems": problems})
}

// tooLarge reports whether err is a request body over previewMaxBody.
func tooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(v)
}

// loopbackHost reports whether hostport (a Host header or a listen
// address) names this machine: localhost, or a loopback IP.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
