package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

const (
	// previewAddr is where the preview serves by default (loopback; the
	// development issuer has 8090, the scaffold's server 8080).
	previewAddr = "127.0.0.1:8091"
	// previewProbeTimeout bounds the probe of the server at start.
	previewProbeTimeout = 15 * time.Second
	// previewStopTimeout bounds the shutdown after Ctrl-C.
	previewStopTimeout = 2 * time.Second
)

func newPreviewCmd(stdout, stderr io.Writer) *cobra.Command {
	var o previewOptions
	cmd := &cobra.Command{
		Use:   "preview URL",
		Short: "Serve an MCP Apps host page for a running server: call a tool that has a page and see the page in your browser",
		Long: `preview is an MCP Apps host for development. It serves a page on a loopback
address that connects to the MCP server at URL (its Streamable HTTP endpoint,
such as http://127.0.0.1:8080/mcp), lists the tools that name a page in
_meta.ui.resourceUri, calls the one you pick with the arguments you type (as
JSON, checked against the tool's inputSchema first), and renders its ui://
page the way hosts do: in a sandboxed iframe (scripts only, an opaque
origin) under the Content Security Policy built from the page's
_meta.ui.csp, speaking the MCP Apps protocol to it (ui/initialize, the tool's
input and result, the page's own tools/call, size changes).

The page's MCP requests go through the preview to URL, so the server needs
no CORS setup; --header adds a header to each of them, such as an access
token for a server made with init --auth. At start the preview asks the
server for its tools and lists those with pages, so a wrong URL, a stopped
server or a missing token fails at once.

It listens on loopback only (127.0.0.1, [::1] or localhost), and answers
only requests that name its loopback address from its own page.
Its standard output is one line, the page's URL, for scripts.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{errors.New("preview takes the URL of the server's MCP endpoint, such as http://127.0.0.1:8080/mcp")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			o.url = args[0]
			return runPreview(ctx, o, stdout, stderr)
		},
	}
	cmd.Flags().StringVar(&o.addr, "addr", previewAddr, "loopback `host:port` to serve the host page on (port 0: a free port)")
	cmd.Flags().StringArrayVarP(&o.headers, "header", "H", nil, "a `header` sent with every request to the server, such as 'Authorization: Bearer TOKEN' (repeatable)")
	return cmd
}

type previewOptions struct {
	url     string
	addr    string
	headers []string
}

// runPreview probes the server, then serves the host page until ctx ends.
func runPreview(ctx context.Context, o previewOptions, stdout, stderr io.Writer) error {
	upstream, err := parseEndpoint(o.url)
	if err != nil {
		return usageError{err}
	}
	if !loopbackHost(o.addr) {
		return usageError{fmt.Errorf("--addr %q is not a loopback address: the preview calls the server with your --header values for whoever reaches it, so it listens on 127.0.0.1, [::1] or localhost only (such as %s)", o.addr, previewAddr)}
	}
	headers, err := parseHeaders(o.headers)
	if err != nil {
		return usageError{err}
	}
	transport := previewTransport()
	defer transport.CloseIdleConnections()

	pctx, cancel := context.WithTimeout(ctx, previewProbeTimeout)
	summary, err := probeServer(pctx, &http.Client{Transport: transport}, upstream.String(), headers)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil // Ctrl-C while probing
		}
		return probeHint(upstream.Redacted(), err)
	}

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("%v (pass --addr 127.0.0.1:0 for a free port)", err)
	}
	page := "http://" + ln.Addr().String() + "/"
	srv := &http.Server{
		Handler:           newPreviewHost(upstream, headers, summary, transport, stderr),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		// Every request ends when the preview stops, the page's open
		// event streams included, so that the stop is prompt.
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	fmt.Fprintf(stderr, "mcpgen preview: %s\n", summary.describe(upstream.Redacted()))
	listAppTools(stderr, summary)
	fmt.Fprintf(stderr, "mcpgen preview: open %s in a browser (loopback only; Ctrl-C stops)\n", page)
	fmt.Fprintln(stdout, page) // last: a script that reads it finds the lines above written

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), previewStopTimeout)
	defer scancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	<-errc
	fmt.Fprintln(stderr, "mcpgen preview: stopped")
	return nil
}

// listAppTools prints the tools there are to preview.
func listAppTools(w io.Writer, s *serverSummary) {
	if len(s.appTools) == 0 {
		fmt.Fprintf(w, "mcpgen preview: none of its %d tools names a page (_meta.ui.resourceUri): nothing to show yet; the page lists them again when reloaded\n", s.tools)
		return
	}
	for _, t := range s.appTools {
		who := ""
		if t.appOnly {
			who = " (called by the page only)"
		}
		fmt.Fprintf(w, "  app tool %s: %s%s\n", t.name, t.page, who)
	}
}

// parseEndpoint checks the server's URL: http or https, with a host.
func parseEndpoint(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("URL %q: want the http:// or https:// URL of the server's MCP endpoint, such as http://127.0.0.1:8080/mcp", raw)
	}
	if u.Fragment != "" {
		return nil, fmt.Errorf("URL %q: an endpoint has no #fragment", raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("URL %q: put credentials in a --header, not in the URL", u.Redacted())
	}
	return u, nil
}

// parseHeaders reads --header values, "Name: value" each.
func parseHeaders(list []string) (http.Header, error) {
	h := http.Header{}
	for i, line := range list {
		name, value, ok := strings.Cut(line, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			// The value is left out of the message: it may be a token.
			return nil, fmt.Errorf("--header %d (%q...): want \"Name: value\", such as 'Authorization: Bearer TOKEN'", i+1, firstWord(line))
		}
		switch http.CanonicalHeaderKey(name) {
		case "Host", "Content-Length", "Content-Type", "Accept", "Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Connection":
			return nil, fmt.Errorf("--header %s: the preview and the page set it themselves", name)
		}
		h.Add(name, value)
	}
	return h, nil
}

// firstWord is the start of s up to a space or colon, at most 20 bytes.
func firstWord(s string) string {
	if i := strings.IndexAny(s, " :"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 20 {
		s = s[:20]
	}
	return s
}
