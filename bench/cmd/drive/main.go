// Command drive puts load on an MCP server started with cmd/serve (or any
// server exposing the same /debug/memstats beside /mcp) and prints what it
// measured:
//
//	go run ./cmd/drive -url http://127.0.0.1:PORT/mcp -w W1 -c 16 -d 10s
//
// Workloads: W1 tools/call add in a legacy session; W2 the same, stateless
// 2026-07-28; W3 confirm's elicitation round trip from a POST-only client;
// W4 live heap and RSS per idle session (-sessions); W5 W1 while -slow slow
// clients trickle their requests; R what each operation of a session costs
// the server's Redis (-redis, -keepalive). -json prints the result as JSON.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/mcpgen/mcpgen/bench/driver"
)

func main() {
	var cfg driver.Config
	flag.StringVar(&cfg.URL, "url", "http://127.0.0.1:8080/mcp", "MCP endpoint (loopback only)")
	flag.StringVar(&cfg.Workload, "w", driver.W1, "workload: W1, W2, W3, W4 or W5")
	flag.IntVar(&cfg.Concurrency, "c", 16, "concurrent clients")
	flag.DurationVar(&cfg.Duration, "d", 10*time.Second, "measured duration")
	flag.DurationVar(&cfg.Warmup, "warmup", 2*time.Second, "unmeasured warm-up before it")
	flag.IntVar(&cfg.Sessions, "sessions", 10000, "W4: idle sessions to open")
	flag.IntVar(&cfg.SlowClients, "slow", 16, "W5: slow clients")
	flag.DurationVar(&cfg.SlowDelay, "slow-delay", 2*time.Millisecond, "W5: pause between a slow client's 8-byte writes and 16-byte reads")
	flag.StringVar(&cfg.RedisAddr, "redis", "", "the Redis the server keeps its sessions in: count what each call (R: each operation) costs it")
	flag.DurationVar(&cfg.KeepAlive, "keepalive", 0, "R: the server's keep-alive interval")
	asJSON := flag.Bool("json", false, "print the result as JSON")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := driver.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "drive:", err)
		os.Exit(1)
	}
	if *asJSON {
		_ = json.NewEncoder(os.Stdout).Encode(r)
	} else {
		b, _ := json.MarshalIndent(r, "", "  ")
		fmt.Println(string(b))
	}
	if r.Errors > 0 || (r.Calls == 0 && r.Workload != driver.R) {
		fmt.Fprintf(os.Stderr, "drive: %d errors, %d calls; first error: %s\n", r.Errors, r.Calls, r.FirstError)
		os.Exit(1)
	}
}
