package driver

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

func sseResponse(body string) *http.Response {
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(strings.NewReader(body)),
	}
}

func TestReadResponseSSE(t *testing.T) {
	// A priming event, a notification, a server request split over two data
	// lines, then the response: only the request reaches onRequest.
	body := "id: 1_1\ndata: \nretry: 1000\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":9,\n" +
		"data: \"method\":\"elicitation/create\",\"params\":{}}\n\n" +
		": keep-alive\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[],\"structuredContent\":{\"sum\":5}}}\n\n"
	var asked []string
	res, err := ReadResponse(sseResponse(body), []byte("3"), func(m *Message) error {
		asked = append(asked, m.Method+" "+string(m.ID))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != "elicitation/create 9" {
		t.Fatalf("server requests seen: %q", asked)
	}
	if err := CheckSum(res, 5); err != nil {
		t.Fatal(err)
	}
}

func TestReadResponseErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		resp *http.Response
		want string
	}{
		"wrong id":        {sseResponse("data: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}\n\n"), "want 3"},
		"stream ends":     {sseResponse("id: 1\ndata: \n\n"), "ended before the response"},
		"rpc error":       {sseResponse("data: {\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"bad\"}}\n\n"), "-32602"},
		"unasked request": {sseResponse("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"roots/list\"}\n\n"), "unexpected server request"},
		"http status":     {&http.Response{StatusCode: http.StatusNotFound, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("gone"))}, "HTTP 404"},
		"json wrong id": {&http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(`{"jsonrpc":"2.0","id":"3","result":{}}`))}, "want 3"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ReadResponse(tc.resp, []byte("3"), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestAddCallBody(t *testing.T) {
	var m struct {
		ID     int64  `json:"id"`
		Method string `json:"method"`
		Params struct {
			Name      string             `json:"name"`
			Arguments map[string]float64 `json:"arguments"`
			Meta      map[string]any     `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(AddCallBody(7, 40, true), &m); err != nil {
		t.Fatal(err)
	}
	if m.ID != 7 || m.Method != "tools/call" || m.Params.Name != "add" || m.Params.Arguments["a"] != 40 || m.Params.Arguments["b"] != 2 {
		t.Fatalf("decoded %+v", m)
	}
	if m.Params.Meta["io.modelcontextprotocol/protocolVersion"] != ModernVersion {
		t.Fatalf("_meta %v", m.Params.Meta)
	}
}

func TestProcessCPU(t *testing.T) {
	start, err := ProcessCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Burn CPU until the kernel's tick-based counter moves, bounded in time.
	deadline := time.Now().Add(10 * time.Second)
	x := 0
	for time.Now().Before(deadline) {
		for i := range 1_000_000 {
			x += i
		}
		now, err := ProcessCPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if now > start {
			return
		}
	}
	t.Fatalf("CPU time did not move in 10 s of busy loop (%d)", x)
}
