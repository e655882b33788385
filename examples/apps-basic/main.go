// Command apps-basic is the mcpgen port of @modelcontextprotocol/server-basic-vanillajs,
// the basic MCP Apps example of the ext-apps SDK: one tool, get-time, whose
// result the page ui://get-time/mcp-app.html shows. schemas/ holds the
// example's own tools/list and resources/list, unedited (apptest/port.mjs
// saves them from the installed package and checks that they, and this
// server's lists, agree with the example's).
//
// The page is the example's, built with the ext-apps App SDK; it is not part
// of this repository, so the server reads it from the file -page names (the
// package's dist/mcp-app.html), through the page's Handler method:
//
//	go run ./examples/apps-basic -page node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/mcp-app.html
//	go run ./examples/apps-basic -stdio -page ...
package main

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen generate -o gettime ./schemas

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpgen/mcpgen/examples/apps-basic/gettime"
	"github.com/mcpgen/mcpgen/runtime"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "apps-basic:", err)
		os.Exit(1)
	}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("apps-basic", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:3001", "serve Streamable HTTP at http://`ADDR`/mcp")
	stdio := fs.Bool("stdio", false, "serve over stdin and stdout instead of HTTP")
	page := fs.String("page", "", "the `FILE` holding the page's HTML (the example's dist/mcp-app.html)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s := runtime.NewServer(runtime.Options{
		Name:    "Basic MCP App Server (Vanilla JS)",
		Version: "1.0.0",
		Logger:  slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err := gettime.Register(s, handler{page: *page}); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *stdio {
		return s.ServeStdio(ctx, stdin, stdout)
	}
	fmt.Fprintf(stderr, "apps-basic: serving http://%s/mcp\n", *addr)
	return s.ListenAndServe(ctx, *addr)
}
