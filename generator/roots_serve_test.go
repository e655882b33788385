package generator_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
	contentblocks "github.com/mcpgen/mcpgen/testdata/golden/content-blocks/want"
	contentblockstest "github.com/mcpgen/mcpgen/testdata/golden/content-blocks/want/contentblockstest"
)

// A generated handle reads the roots as the session holds them and what the
// client declared about itself, and the generated test client declares,
// changes and counts roots: both eras, over HTTP and stdio.

type rootsReader struct {
	contentblocks.UnimplementedHandler
}

func (rootsReader) TestSimpleText(ctx context.Context, call contentblocks.TestSimpleTextCall, _ contentblocks.TestSimpleTextInput) ([]runtime.Content, error) {
	roots, err := call.Roots(ctx)
	if err != nil {
		return nil, err
	}
	var uris []string
	for _, r := range roots {
		uris = append(uris, r.URI)
	}
	info := call.ClientInfo()
	session := "none"
	if call.SessionID() != "" {
		session = "yes"
	}
	return []runtime.Content{runtime.Text(fmt.Sprintf("%s | %s/%s %s session=%s roots-cap=%v", strings.Join(uris, " "),
		info.Name, info.Version, call.ProtocolVersion(), session, call.ClientCapabilities().Roots != nil))}, nil
}

func TestGeneratedHandleReadsSessionRoots(t *testing.T) {
	newServer := serverWith(func(s *runtime.Server) error { return contentblocks.Register(s, rootsReader{}) })
	for name, opts := range transports {
		t.Run(name, func(t *testing.T) {
			contentblockstest.Run(t, newServer, func(t *testing.T, c *contentblockstest.Client) {
				ctx := t.Context()
				session := c.Era() != mcptest.Modern
				if session {
					if err := c.Listen(ctx); err != nil {
						t.Fatal(err)
					}
				}
				read := func(want string) {
					t.Helper()
					content, err := c.TestSimpleText(ctx, contentblocks.TestSimpleTextInput{})
					if err != nil {
						t.Fatal(err)
					}
					wantSession := "none"
					if session {
						wantSession = "yes"
					}
					full := fmt.Sprintf("%s | mcptest/1.0.0 %s session=%s roots-cap=true", want, c.Era(), wantSession)
					if got := content.Text(); got != full {
						t.Errorf("got  %q\nwant %q", got, full)
					}
				}
				read("file:///src")
				read("file:///src")
				if err := c.ChangeRoots(ctx, runtime.Root{URI: "file:///docs"}); err != nil {
					t.Fatal(err)
				}
				read("file:///docs")
				want := 2
				if !session {
					want = 3
				}
				if got := c.RootsAsked(); got != want {
					t.Errorf("asked %d times, want %d", got, want)
				}
			}, append(append([]mcptest.Option(nil), opts...), mcptest.Roots(runtime.Root{URI: "file:///src"}))...)
		})
	}
}
