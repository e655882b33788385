package mcptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
)

// message is any JSON-RPC message, as the client reads and writes it.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *runtime.Error  `json:"error,omitempty"`
}

func (m *message) isRequest() bool      { return m.Method != "" && len(m.ID) > 0 }
func (m *message) isNotification() bool { return m.Method != "" && len(m.ID) == 0 }
func (m *message) isResponse() bool     { return m.Method == "" && len(m.ID) > 0 }

// maxMessageBytes bounds one message the client reads (a line on stdio, an
// event or a JSON body over HTTP), like the runtime's own MaxBodyBytes.
const maxMessageBytes = 16 << 20

func decodeMessage(data []byte) (*message, error) {
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("not a JSON-RPC message: %v: %.200s", err, data)
	}
	return &m, nil
}

// sseReader reads the JSON-RPC messages of a text/event-stream body.
// Events without data (priming events, comments, keep-alives) are skipped.
type sseReader struct {
	r *bufio.Reader
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{r: bufio.NewReader(r)} }

// next returns the next message, or io.EOF when the stream ended between
// events.
func (s *sseReader) next() (*message, error) {
	var data bytes.Buffer
	for {
		line, err := s.line()
		if err != nil {
			if errors.Is(err, io.EOF) && data.Len() > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		switch {
		case line == "":
			if data.Len() == 0 {
				continue
			}
			return decodeMessage(data.Bytes())
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			if data.Len() > maxMessageBytes {
				return nil, fmt.Errorf("an event is larger than %d bytes", maxMessageBytes)
			}
		}
	}
}

// line reads one line without its end, bounded by maxMessageBytes.
func (s *sseReader) line() (string, error) {
	var b []byte
	for {
		chunk, isPrefix, err := s.r.ReadLine()
		if err != nil {
			return "", err
		}
		b = append(b, chunk...)
		if len(b) > maxMessageBytes {
			return "", fmt.Errorf("an event line is longer than %d bytes", maxMessageBytes)
		}
		if !isPrefix {
			return string(b), nil
		}
	}
}
