package mcptest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// A Target is where a client connects: a server in this process (over HTTP
// or stdio), a server at a URL, or a command that serves stdio.
type Target interface {
	// open starts one client's connection.
	open(ctx context.Context, cfg *config, era Era, d dispatcher) (transport, error)
}

// HTTP is a server in this process, reached through its ServeHTTP (a
// *runtime.Server, or any handler wrapping one) with no socket: each
// request runs the handler on a goroutine and streams the response through
// a pipe, so sessions, event streams and questions run exactly the code a
// network client reaches.
func HTTP(h http.Handler) Target { return httpTarget{handler: h} }

// URL is a server listening at endpoint (such as
// "http://127.0.0.1:8080/mcp"), for integration tests of a running server.
func URL(endpoint string) Target { return httpTarget{url: endpoint} }

type httpTarget struct {
	handler http.Handler
	url     string
}

func (t httpTarget) open(ctx context.Context, cfg *config, era Era, d dispatcher) (transport, error) {
	if t.handler != nil {
		rt := &inProcessTransport{h: t.handler}
		return newHTTPTransport(&http.Client{Transport: rt}, "http://in-process/mcp", cfg, era, d, rt), nil
	}
	return newHTTPTransport(&http.Client{Transport: &http.Transport{}}, t.url, cfg, era, d, nil), nil
}

// Stdio is a server in this process served through ServeStdio on pipes:
// each client gets a ServeStdio of its own, as each subprocess would.
func Stdio(srv *runtime.Server) Target { return stdioTarget{srv: srv} }

type stdioTarget struct{ srv *runtime.Server }

func (t stdioTarget) open(ctx context.Context, cfg *config, era Era, d dispatcher) (transport, error) {
	toServer, serverIn := io.Pipe()
	serverOut, fromServer := io.Pipe()
	serveCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	served := make(chan error, 1)
	go func() {
		// The connection ends when the client closes its end: ServeStdio
		// then sees EOF, lets running calls finish and returns.
		err := t.srv.ServeStdio(serveCtx, toServer, fromServer)
		fromServer.Close() // everything the server wrote is written; the client's reader ends
		served <- err
	}()
	// stop waits for ServeStdio after the client closed its end; when ctx
	// ends first, it cancels the running calls and waits once more.
	stop := func(ctx context.Context) error {
		defer cancel()
		select {
		case err := <-served:
			return err
		case <-ctx.Done():
		}
		cancel()
		toServer.CloseWithError(ctx.Err())
		select {
		case <-served:
		case <-time.After(closeTimeout):
		}
		return fmt.Errorf("ServeStdio did not return after the client closed its input: %w", ctx.Err())
	}
	return newStdioTransport(serverIn, serverOut, d, stop), nil
}

// Command is a server started as a subprocess that serves stdio, as
// desktop clients start servers: newCmd returns the command (a new one per
// client: each client starts its own process); its stdin and stdout carry
// the protocol and its stderr is logged when the test fails. Closing the
// client closes the process's stdin and waits for it to exit, and kills it
// when it does not within a bound.
func Command(newCmd func() *exec.Cmd) Target { return commandTarget{newCmd: newCmd} }

type commandTarget struct{ newCmd func() *exec.Cmd }

func (t commandTarget) open(ctx context.Context, cfg *config, era Era, d dispatcher) (transport, error) {
	return startCommand(t.newCmd(), d)
}
