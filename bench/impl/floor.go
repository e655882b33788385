package impl

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
)

func init() {
	register(Impl{Name: "floor", New: newFloor, Modern: true, Elicit: true, Sessions: false})
}

// floor is the least a server can do: decode the JSON-RPC message, run the
// tool, encode the result. No sessions, no validation, no version checks,
// no origin checks. confirm gets the smallest elicitation round trip that
// works (an SSE response, a map of pending answers) so W3 has a floor too.
type floor struct {
	nextID  atomic.Int64
	pending sync.Map // outbound request id (string) -> chan json.RawMessage
}

func newFloor() (http.Handler, error) { return &floor{}, nil }

type floorMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

type floorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *floorError     `json:"error,omitempty"`
}

type floorError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type floorText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type floorToolResult struct {
	Content           []floorText `json:"content"`
	StructuredContent any         `json:"structuredContent,omitempty"`
	ResultType        string      `json:"resultType,omitempty"`
}

func (f *floor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	var msg floorMessage
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch {
	case msg.Method == "" && msg.Result != nil: // an answer to our elicitation
		if ch, ok := f.pending.LoadAndDelete(string(msg.ID)); ok {
			ch.(chan json.RawMessage) <- msg.Result
		}
		w.WriteHeader(http.StatusAccepted)
		return
	case msg.ID == nil: // a notification
		w.WriteHeader(http.StatusAccepted)
		return
	}
	resp := floorResponse{JSONRPC: "2.0", ID: msg.ID}
	switch msg.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		w.Header().Set("Mcp-Session-Id", "floor")
		resp.Result = map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "bench-floor", "version": "0.1.0"},
		}
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(msg.Params, &p); err != nil {
			resp.Error = &floorError{Code: -32602, Message: err.Error()}
			break
		}
		resultType := ""
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			resultType = "complete"
		}
		switch p.Name {
		case "add":
			var in addIn
			if err := json.Unmarshal(p.Arguments, &in); err != nil {
				resp.Error = &floorError{Code: -32602, Message: err.Error()}
				break
			}
			out := addOut{Sum: in.A + in.B}
			text, _ := json.Marshal(out)
			resp.Result = &floorToolResult{Content: []floorText{{"text", string(text)}}, StructuredContent: out, ResultType: resultType}
		case "confirm":
			f.confirm(w, r, resp)
			return
		default:
			resp.Error = &floorError{Code: -32602, Message: "unknown tool"}
		}
	default:
		resp.Error = &floorError{Code: -32601, Message: "method not found"}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// confirm sends elicitation/create on the POST's own SSE stream, waits for the
// answer a second POST delivers, then sends the result on the same stream.
func (f *floor) confirm(w http.ResponseWriter, r *http.Request, resp floorResponse) {
	id := strconv.FormatInt(f.nextID.Add(1), 10)
	ch := make(chan json.RawMessage, 1)
	f.pending.Store(id, ch)
	defer f.pending.Delete(id)

	w.Header().Set("Content-Type", "text/event-stream")
	enc := json.NewEncoder(w)
	_, _ = w.Write([]byte("event: message\ndata: "))
	_ = enc.Encode(map[string]any{
		"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "elicitation/create",
		"params": map[string]any{"mode": "form", "message": confirmMessage, "requestedSchema": json.RawMessage(confirmFormSchema)},
	})
	_, _ = w.Write([]byte("\n"))
	http.NewResponseController(w).Flush()

	var answer json.RawMessage
	select {
	case answer = <-ch:
	case <-r.Context().Done():
		return
	}
	var a struct {
		Action  string `json:"action"`
		Content struct {
			Confirm bool `json:"confirm"`
		} `json:"content"`
	}
	_ = json.Unmarshal(answer, &a)
	text := textDeclined
	if a.Action == "accept" && a.Content.Confirm {
		text = textConfirmed
	}
	resp.Result = &floorToolResult{Content: []floorText{{"text", text}}}
	_, _ = w.Write([]byte("event: message\ndata: "))
	_ = enc.Encode(resp)
	_, _ = w.Write([]byte("\n"))
}
