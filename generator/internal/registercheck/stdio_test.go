package registercheck

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
	blocks "github.com/mcpgen/mcpgen/testdata/golden/content-blocks/want"
	metastrip "github.com/mcpgen/mcpgen/testdata/golden/meta-strip/want"
	"github.com/mcpgen/mcpgen/testdata/realworld"
)

// client talks newline-delimited JSON-RPC to a Server over stdio.
type client struct {
	t    *testing.T
	w    io.WriteCloser
	r    *bufio.Reader
	done chan error
}

func startStdio(t *testing.T, s *runtime.Server) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, w: inW, r: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		err := s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		c.done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		if err := <-c.done; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	c.read()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *client) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// msg is any JSON-RPC message.
type msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *runtime.Error  `json:"error"`
}

func (c *client) read() msg {
	c.t.Helper()
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		c.t.Fatal(err)
	}
	var m msg
	if err := json.Unmarshal(line, &m); err != nil {
		c.t.Fatalf("%v: %s", err, line)
	}
	return m
}

type blocksHandler struct{ blocks.UnimplementedHandler }

func (blocksHandler) TestMultipleContentTypes(ctx context.Context, call blocks.TestMultipleContentTypesCall, in blocks.TestMultipleContentTypesInput) ([]runtime.Content, error) {
	call.AddContent(&runtime.AudioContent{Data: []byte{1}, MIMEType: "audio/wav"})
	return []runtime.Content{
		runtime.Text("hello"),
		&runtime.ImageContent{Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"},
		&runtime.ResourceLink{URI: "test://link", Name: "link"},
		&runtime.EmbeddedResource{Resource: runtime.ResourceContents{URI: "test://embedded", MIMEType: "text/plain", Text: "x"}},
	}, nil
}

func TestContentBlocksOverStdio(t *testing.T) {
	s := runtime.NewServer(runtime.Options{Name: "blocks"})
	if err := blocks.Register(s, blocksHandler{}); err != nil {
		t.Fatal(err)
	}
	c := startStdio(t, s)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_multiple_content_types","arguments":{}}}`)
	m := c.read()
	var res struct {
		Content []struct{ Type string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil {
		t.Fatalf("%v: %s", err, m.Result)
	}
	var types []string
	for _, b := range res.Content {
		types = append(types, b.Type)
	}
	if got := strings.Join(types, " "); got != "text image resource_link resource audio" || res.IsError {
		t.Fatalf("blocks %q, isError %v", got, res.IsError)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}`)
	if m := c.read(); !strings.Contains(string(m.Result), `"isError":true`) || !strings.Contains(string(m.Result), "not implemented") {
		t.Fatalf("unimplemented tool: %s", m.Result)
	}
}

type realworldHandler struct{ realworld.UnimplementedHandler }

func (realworldHandler) ListDirectory(ctx context.Context, call realworld.ListDirectoryCall, in realworld.ListDirectoryInput) (realworld.ListDirectoryOutput, error) {
	return realworld.ListDirectoryOutput{Entries: []realworld.ListDirectoryOutputEntriesItem{
		{Name: in.Path + "/a.txt", Type: realworld.ListDirectoryOutputEntriesItemTypeFile},
	}}, nil
}

func TestStructuredOutputAndListOverStdio(t *testing.T) {
	s := runtime.NewServer(runtime.Options{Name: "realworld"})
	if err := realworld.Register(s, realworldHandler{}); err != nil {
		t.Fatal(err)
	}
	c := startStdio(t, s)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_directory","arguments":{"path":"/tmp"}}}`)
	m := c.read()
	var res struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil || string(res.StructuredContent) != `{"entries":[{"name":"/tmp/a.txt","type":"file"}]}` {
		t.Fatalf("%v: %s", err, m.Result)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	m = c.read()
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(m.Result, &list); err != nil || len(list.Tools) != 20 {
		t.Fatalf("tools/list: %v, %d tools", err, len(list.Tools))
	}
	for _, tool := range list.Tools {
		if strings.Contains(string(tool), "mcpgen.dev/") {
			t.Errorf("tools/list advertises mcpgen's _meta: %s", tool)
		}
	}
}

type removeHandler struct{ metastrip.UnimplementedHandler }

func (removeHandler) RemoveFile(ctx context.Context, call metastrip.RemoveFileCall, in metastrip.RemoveFileInput) ([]runtime.Content, error) {
	answer, err := call.ElicitConfirmDelete(ctx, "Delete "+in.Path+"?")
	switch {
	case errors.Is(err, runtime.ErrDeclined):
		return []runtime.Content{runtime.Text("declined")}, nil
	case err != nil:
		return nil, err
	case !answer.Confirm:
		return []runtime.Content{runtime.Text("kept")}, nil
	}
	return []runtime.Content{runtime.Text("deleted " + in.Path + " because " + *answer.Reason)}, nil
}

func TestTypedElicitationOverStdio(t *testing.T) {
	s := runtime.NewServer(runtime.Options{Name: "meta"})
	if err := metastrip.Register(s, removeHandler{}); err != nil {
		t.Fatal(err)
	}
	c := startStdio(t, s)
	for _, tc := range []struct{ answer, want string }{
		{`{"action":"accept","content":{"confirm":true,"reason":"old"}}`, "deleted /x because old"},
		{`{"action":"decline"}`, "declined"},
	} {
		c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_file","arguments":{"path":"/x"}}}`)
		m := c.read()
		if m.Method != "elicitation/create" || !strings.Contains(string(m.Params), `"message":"Delete /x?"`) {
			t.Fatalf("want elicitation/create, got %+v %s", m, m.Params)
		}
		c.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + tc.answer + `}`)
		m = c.read()
		if !strings.Contains(string(m.Result), tc.want) {
			t.Fatalf("result %s, want %q", m.Result, tc.want)
		}
	}
	// Arguments the schema rejects never reach the handler.
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_file","arguments":{"path":7}}}`)
	if m := c.read(); m.Error == nil && !strings.Contains(string(m.Result), `"isError":true`) {
		t.Fatalf("bad arguments: %+v %s", m, m.Result)
	}
}
