package generator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
	githubmcpapps "github.com/mcpgen/mcpgen/testdata/golden/github-mcp-apps/want"
	githubmcpappstest "github.com/mcpgen/mcpgen/testdata/golden/github-mcp-apps/want/githubmcpappstest"
)

// The GitHub MCP server's tools/list names four MCP Apps pages that a
// tools/list dump cannot declare; the golden generated from it serves each
// from a Handler method. Served here, in both eras over HTTP and stdio.

type github struct {
	githubmcpapps.UnimplementedHandler
}

const profilePage = "<!DOCTYPE html>\n<html><body><div id=\"profile\"></div></body></html>\n"

func (github) ReadGetMeUI(context.Context, githubmcpapps.GetMeUIResourceCall) (string, error) {
	return profilePage, nil
}

func (github) GetMe(_ context.Context, call githubmcpapps.GetMeCall, _ githubmcpapps.GetMeInput) ([]runtime.Content, error) {
	if call.HostRendersPage() {
		return []runtime.Content{runtime.Text(`{"login":"octocat"}`)}, nil
	}
	return []runtime.Content{runtime.Text("You are octocat.")}, nil
}

func TestPagesFromHandlers(t *testing.T) {
	newServer := serverWith(func(s *runtime.Server) error { return githubmcpapps.Register(s, github{}) })
	for name, opts := range transports {
		t.Run(name, func(t *testing.T) {
			githubmcpappstest.Run(t, newServer, func(t *testing.T, c *githubmcpappstest.Client) {
				ctx := t.Context()
				page, err := c.ReadGetMeUI(ctx)
				if err != nil || len(page.Contents) != 1 || page.Contents[0].Text != profilePage ||
					page.Contents[0].MIMEType != "text/html;profile=mcp-app" || page.Contents[0].URI != githubmcpapps.GetMeUIResourceURI {
					t.Fatalf("reading the get_me page: %+v %v", page, err)
				}
				if _, err := c.ReadIssueWriteUI(ctx); err == nil || !strings.Contains(err.Error(), "not implemented") {
					t.Fatalf("a page the handler does not implement: %v", err)
				}
				resources, err := c.ListResources(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var listed []string
				for _, r := range resources {
					listed = append(listed, r.URI+" "+r.Name+" "+r.MIMEType)
				}
				want := "ui://github-mcp-server/pr-write create_pull_request_ui text/html;profile=mcp-app," +
					"ui://github-mcp-server/get-me get_me_ui text/html;profile=mcp-app," +
					"ui://github-mcp-server/issue-write issue_write_ui text/html;profile=mcp-app," +
					"ui://github-mcp-server/pr-edit update_pull_request_ui text/html;profile=mcp-app"
				if got := strings.Join(listed, ","); got != want {
					t.Fatalf("resources/list:\n%s\nwant\n%s", got, want)
				}
				tools, err := c.ListTools(ctx)
				if err != nil || len(tools) != 4 {
					t.Fatalf("tools/list: %d tools, %v", len(tools), err)
				}
				out, err := c.GetMe(ctx, githubmcpapps.GetMeInput{})
				if err != nil || out.Text() != "You are octocat." {
					t.Fatalf("get_me from a client without MCP Apps: %q %v", out.Text(), err)
				}
				if _, err := c.IssueWrite(ctx, githubmcpapps.IssueWriteInput{Method: githubmcpapps.IssueWriteInputMethodCreate, Owner: "o", Repo: "r"}); err == nil {
					t.Fatal("issue_write, which the handler does not implement, succeeded")
				}
			}, opts...)
		})
	}
}
