package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpgen/mcpgen/templates"
)

// servingPrefix starts the line the scaffold's main.go prints once it
// listens, followed by the endpoint's URL.
const servingPrefix = "serving MCP over Streamable HTTP at "

// scriptEnd is the demo's last line while it serves: a bash comment, so that
// pasting the curl script to the end of the output runs nothing else.
const scriptEnd = "# (the demo serves until Ctrl-C)"

func newDemoCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var o demoOptions
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Scaffold the example project into a temp folder, generate, build, start it, and print how to call it",
		Long: `demo does what a new user would: mcpgen init into a temporary folder, go generate,
go build, then starts the server on 127.0.0.1 and prints curl commands that call
it, including the full elicitation round trip. It runs until Ctrl-C, then stops
the server and removes the folder (unless --keep).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			err := runDemo(ctx, o, stdout, stderr)
			if err != nil && ctx.Err() != nil {
				fmt.Fprintf(stdout, "\nInterrupted (%v).\n", err)
				return nil // Ctrl-C during the setup steps: stopping is what was asked
			}
			return err
		},
	}
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:0", "address the demo server listens on (port 0: a free port)")
	cmd.Flags().BoolVar(&o.exit, "exit", false, "stop the server and exit after printing (for scripts and CI)")
	cmd.Flags().BoolVar(&o.keep, "keep", false, "keep the scaffolded project folder when the demo stops")
	return cmd
}

type demoOptions struct {
	addr string
	exit bool
	keep bool
}

func runDemo(ctx context.Context, o demoOptions, stdout, stderr io.Writer) (err error) {
	// The server's output is forwarded from other goroutines.
	stderr = &lockedWriter{w: stderr}
	tmp, err := os.MkdirTemp("", "mcpgen-demo-")
	if err != nil {
		return err
	}
	if !o.keep {
		defer func() {
			if rmErr := os.RemoveAll(tmp); rmErr != nil && err == nil {
				err = rmErr
			}
		}()
	}
	dir := filepath.Join(tmp, "notes-demo")

	fmt.Fprintf(stdout, "== mcpgen init %s\n", dir)
	var initLog bytes.Buffer // the file list is long; shown only when init fails
	if err := scaffold(ctx, dir, "", scaffoldOptions{name: "notes"}, &initLog, &initLog); err != nil {
		stderr.Write(initLog.Bytes())
		return err
	}
	fmt.Fprintln(stdout, "== go generate ./...")
	if err := goCommand(ctx, dir, stderr, "generate", "./..."); err != nil {
		return err
	}
	bin := filepath.Join(dir, "notes-demo")
	if goruntime.GOOS == "windows" {
		bin += ".exe"
	}
	fmt.Fprintln(stdout, "== go build")
	if err := goCommand(ctx, dir, stderr, "build", "-o", bin, "."); err != nil {
		return err
	}

	srvCtx, stopServer := context.WithCancel(context.WithoutCancel(ctx))
	defer stopServer()
	srv := exec.CommandContext(srvCtx, bin, "-addr", o.addr)
	srv.Dir = dir
	srv.Stdout = stderr
	srv.Cancel = func() error { return srv.Process.Signal(os.Interrupt) }
	srv.WaitDelay = 10 * time.Second
	logs, err := srv.StderrPipe()
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	urlc := make(chan string, 1)
	go func() {
		// Forward the server's log; the first matching line names its URL.
		sc := bufio.NewScanner(logs)
		for sc.Scan() {
			line := sc.Text()
			if u, ok := strings.CutPrefix(line, servingPrefix); ok {
				select {
				case urlc <- strings.Fields(u)[0]:
				default:
				}
			}
			fmt.Fprintf(stderr, "server: %s\n", line)
		}
		io.Copy(io.Discard, logs)
		exited <- srv.Wait()
	}()
	stopAndWait := func() error {
		stopServer()
		<-exited // an interrupted command's Wait reports the cancellation; its exit status tells how it went
		if st := srv.ProcessState; st != nil && !st.Success() {
			return fmt.Errorf("the demo server did not stop cleanly: %s", st)
		}
		return nil
	}

	var url string
	select {
	case url = <-urlc:
	case err := <-exited:
		return fmt.Errorf("the demo server exited before serving: %v", err)
	case <-ctx.Done():
		return stopAndWait()
	case <-time.After(time.Minute):
		stopAndWait()
		return errors.New("the demo server did not start listening within a minute")
	}
	versions, err := probe(ctx, url)
	if err != nil {
		stopAndWait()
		return err
	}

	script, err := templates.Curl(url)
	if err != nil {
		stopAndWait()
		return err
	}
	fmt.Fprintf(stdout, "\nThe demo MCP server is running at %s\n", url)
	fmt.Fprintf(stdout, "It offers protocol versions %s, all on this one endpoint (server/discover lists them);\n"+
		"started with -versions 2025-11-25,2026-07-28 it would offer only those (runtime.Options.SupportedProtocolVersions).\n",
		strings.Join(versions, ", "))
	if o.keep {
		fmt.Fprintf(stdout, "Its project: %s (kept)\n", dir)
	} else {
		fmt.Fprintf(stdout, "Its project: %s (removed when the demo stops; --keep keeps it)\n", dir)
	}
	cfg, err := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{
		"notes-demo": map[string]any{"command": bin, "args": []string{"-stdio"}},
	}}, "", "  ")
	if err != nil {
		stopAndWait()
		return err
	}
	keepHint := " (the binary lives in the project folder: rerun with --keep so that it stays)"
	if o.keep {
		keepHint = ""
	}
	fmt.Fprintf(stdout, "\nA desktop MCP client starts the same server over stdio with this configuration%s:\n\n%s\n", keepHint, cfg)
	if o.exit {
		fmt.Fprintf(stdout, "\nCall it with curl; paste into bash (steps 3 and 4: the elicitation round trip, in a session and for a 2026-07-28 client):\n\n%s\n", script)
		fmt.Fprintln(stdout, "Stopping (--exit).")
		return stopAndWait()
	}
	// Everything after the header is for bash, the last line included, so
	// that pasting to the end of the output runs nothing but the script.
	fmt.Fprintf(stdout, "\nPress Ctrl-C to stop the demo. Call it with curl; paste into bash (steps 3 and 4: the elicitation round trip, in a session and for a 2026-07-28 client):\n\n%s%s\n", script, scriptEnd)
	select {
	case <-ctx.Done():
		fmt.Fprintln(stdout, "\nStopping.")
		return stopAndWait()
	case err := <-exited:
		return fmt.Errorf("the demo server stopped: %v", err)
	}
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// probe checks that the server answers an initialize on url.
func probe(ctx context.Context, url string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	// server/discover needs no session, so the probe leaves nothing behind.
	body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpgen-demo","version":"1"}}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "server/discover")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the demo server does not answer: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var m struct {
		Result struct {
			SupportedVersions []string `json:"supportedVersions"`
		} `json:"result"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &m) != nil || len(m.Result.SupportedVersions) == 0 {
		return nil, fmt.Errorf("the demo server answered server/discover with %s: %s", resp.Status, b)
	}
	return m.Result.SupportedVersions, nil
}
