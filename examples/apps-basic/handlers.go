package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/mcpgen/mcpgen/examples/apps-basic/gettime"
)

// handler implements the example's one tool and serves its page.
type handler struct {
	page string // the page's file
}

var _ gettime.Handler = handler{}

// GetTime answers as the example does: the time in ISO 8601 with
// milliseconds (JavaScript's toISOString), as the text and as structured
// output.
func (handler) GetTime(ctx context.Context, call gettime.GetTimeCall, in gettime.GetTimeInput) (gettime.GetTimeOutput, error) {
	return gettime.GetTimeOutput{Time: time.Now().UTC().Format("2006-01-02T15:04:05.000Z")}, nil
}

// ReadUIGetTimeMCPAppHTML serves the example's page from its file.
func (h handler) ReadUIGetTimeMCPAppHTML(ctx context.Context, call gettime.UIGetTimeMCPAppHTMLResourceCall) (string, error) {
	if h.page == "" {
		return "", errors.New("the server was started without -page, the file of the page's HTML")
	}
	b, err := os.ReadFile(h.page)
	if err != nil {
		return "", fmt.Errorf("reading the page: %w", err)
	}
	return string(b), nil
}
