// Command mcpgen-dev-issuer runs a development OAuth 2.1 authorization
// server on loopback (package github.com/mcpgen/mcpgen/oauth/devissuer): the
// tokens an MCP server made with `mcpgen init --auth` accepts while you
// develop it, for MCP clients (authorization code with PKCE, after a consent
// page in the browser) and for scripts (client credentials). A project made
// with --auth pins it as a tool:
//
//	go tool mcpgen-dev-issuer                 # issuer http://127.0.0.1:8090
//	go tool mcpgen-dev-issuer -addr 127.0.0.1:0 -ttl 2m
//
// It refuses to listen on anything but a loopback address, keeps everything
// in memory and forgets it when it stops; it is not for production.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/oauth/devissuer"
)

func main() {
	addr := flag.String("addr", devissuer.DefaultAddr, "loopback `host:port` to listen on (127.0.0.1, [::1] or localhost; port 0 picks a free one)")
	ttl := flag.Duration("ttl", devissuer.DefaultTokenTTL, "lifetime of the access tokens (at most 24h)")
	clientID := flag.String("client-id", devissuer.DefaultClientID, "client ID of the script client (client_credentials grant)")
	clientSecret := flag.String("client-secret", devissuer.DefaultClientSecret, "its secret")
	user := flag.String("user", devissuer.DefaultUser, "the subject of tokens approved on the consent page (the page can change it)")
	quiet := flag.Bool("quiet", false, "log refusals only, not every token")
	noRefresh := flag.Bool("no-refresh", false, "issue no refresh tokens: clients authorize again when a token expires or lacks a scope")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "mcpgen-dev-issuer: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr, devissuer.Config{TokenTTL: *ttl, ClientID: *clientID, ClientSecret: *clientSecret, User: *user, NoRefreshTokens: *noRefresh}, *quiet); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgen-dev-issuer:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, addr string, cfg devissuer.Config, quiet bool) error {
	if err := devissuer.CheckLoopback(addr); err != nil {
		return err
	}
	level := slog.LevelInfo
	if quiet {
		level = slog.LevelWarn
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	is, err := devissuer.New("http://"+ln.Addr().String(), cfg)
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: is, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	// The first line is the issuer alone, for scripts: ISSUER=$(... | head -n 1).
	fmt.Printf("%s\n", is.URL())
	fmt.Fprintf(os.Stderr, "development issuer at %s (loopback only; Ctrl-C stops; tokens live %v)\n", is.URL(), cfg.TokenTTL)
	fmt.Fprintf(os.Stderr, "a token for a script: curl -s -u %s:%s -d grant_type=client_credentials -d scope=SCOPES -d resource=http://127.0.0.1:8080/mcp %s/token\n",
		cfg.ClientID, cfg.ClientSecret, is.URL())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	<-errc
	return nil
}
