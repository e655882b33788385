package runtime

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Options configure a Server. The zero value is safe: loopback-only origins,
// bounded buffers and timeouts.
type Options struct {
	// Name, Version and Title identify the server in serverInfo.
	Name, Version, Title string
	// Instructions are sent in the initialize / server/discover result.
	Instructions string
	// Logger receives the runtime's logs; nil discards them.
	Logger *slog.Logger
	// StateKey seals 2026-07-28 requestState (HMAC/AEAD). Replicas that serve one
	// client must share it; empty means a random key per Server.
	StateKey []byte

	// The transport adds its own knobs (buffer sizes, timeouts, allowed origins,
	// stores); see the fields below this line as the runtime grows.
}

// Server serves registered tools over Streamable HTTP and stdio.
type Server struct {
	opts   Options
	logger *slog.Logger

	mu     sync.RWMutex
	tools  []*registeredTool // in registration order: tools/list is deterministic
	byName map[string]*registeredTool
}

// registeredTool is a Tool with its input schema compiled.
type registeredTool struct {
	Tool
	input *jsonschema.Schema
}

// NewServer returns a Server with no tools.
func NewServer(opts Options) *Server {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Server{opts: opts, logger: logger, byName: map[string]*registeredTool{}}
}

// AddTool registers a tool: it compiles the inputSchema of its Definition and
// the forms of its elicitations. Adding a name twice is an error.
func (s *Server) AddTool(t Tool) error {
	var def struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(t.Definition, &def); err != nil {
		return fmt.Errorf("tool %q: definition: %w", t.Name, err)
	}
	if def.Name != t.Name {
		return fmt.Errorf("tool %q: definition names %q", t.Name, def.Name)
	}
	if t.Handler == nil {
		return fmt.Errorf("tool %q: no handler", t.Name)
	}
	in, err := compileSchema("mcpgen:tool/"+t.Name+"/inputSchema", def.InputSchema)
	if err != nil {
		return fmt.Errorf("tool %q: %w", t.Name, err)
	}
	for _, e := range t.Elicitations {
		if _, err := e.form(); err != nil {
			return fmt.Errorf("tool %q: %w", t.Name, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.byName[t.Name]; dup {
		return fmt.Errorf("tool %q is already registered", t.Name)
	}
	rt := &registeredTool{Tool: t, input: in}
	s.tools = append(s.tools, rt)
	s.byName[t.Name] = rt
	return nil
}
