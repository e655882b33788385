package mcptest_test

import (
	"context"
	"net"
	"testing"

	"github.com/mcpgen/mcpgen/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

// BenchmarkCall measures one tools/call with one elicitation round trip
// (pay, answered with confirm) per transport and era: what a test of a
// handler that asks costs.
func BenchmarkCall(b *testing.B) {
	for _, tr := range []struct {
		name   string
		target func(b *testing.B, s *runtime.Server) mcptest.Target
	}{
		{"in-process HTTP", func(b *testing.B, s *runtime.Server) mcptest.Target { return mcptest.HTTP(s) }},
		{"in-process stdio", func(b *testing.B, s *runtime.Server) mcptest.Target { return mcptest.Stdio(s) }},
		{"loopback HTTP", func(b *testing.B, s *runtime.Server) mcptest.Target {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Serve(ctx, ln) }()
			b.Cleanup(func() { cancel(); <-done })
			return mcptest.URL("http://" + ln.Addr().String() + "/mcp")
		}},
	} {
		for _, era := range []mcptest.Era{mcptest.Legacy, mcptest.Modern} {
			b.Run(tr.name+"/"+string(era), func(b *testing.B) {
				s := newFixtureServer(b, &ledger{})
				b.Cleanup(func() { _ = s.Close() })
				c := mcptest.Connect(b, tr.target(b, s), era)
				declare(c)
				c.Accept("confirm", confirmAnswer{OK: true})
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					res, err := c.CallTool(ctx, "pay", map[string]string{"to": "bob"})
					if err != nil || res.IsError {
						b.Fatal(err, res)
					}
				}
			})
		}
	}
}
