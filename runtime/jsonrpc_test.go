package runtime

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"unicode/utf8"
)

// TestInvalidUTF8IsAParseError: a message that is not UTF-8 is refused with
// -32700 and HTTP 400, and nothing of it is echoed: the reply is valid JSON
// text. Before, the envelope scanner kept the raw bytes, and an id with
// invalid UTF-8 came back inside the error response.
func TestInvalidUTF8IsAParseError(t *testing.T) {
	_, ts := legacyServer(t, Options{}, echoTool())
	c := newClient(t, ts)
	c.initialize(Version20251125, `{}`)
	for _, body := range []string{
		"{\"jsonrpc\":\"2.0\",\"id\":\"\x88\",\"method\":\"nosuch\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\x88\"}",
		"{\"jsonrpc\":\"2.0\",\"method\":\"\x88\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"a\xffb\"}}}",
	} {
		resp := c.post(body)
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(raw) || !json.Valid(raw) {
			t.Fatalf("%q: reply %q is not valid JSON text", body, raw)
		}
		var m rpc
		_ = json.Unmarshal(raw, &m)
		if resp.StatusCode != http.StatusBadRequest || m.Error == nil || m.Error.Code != CodeParseError || string(m.ID) != "null" {
			t.Fatalf("%q: status %d, reply %s; want 400 with -32700 and a null id", body, resp.StatusCode, raw)
		}
	}
}
