package servercard

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// memSource is a Source held in memory: what the runtime's description
// gives, for the package's own tests. setTools changes the lists and tells
// the listeners, as the runtime does when a tool is added or the list
// change is announced.
type memSource struct {
	mu        sync.Mutex
	d         Description
	listeners []func()
	describes int // how many times Describe ran
}

func (s *memSource) Describe() Description {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.describes++
	d := s.d
	d.Tools = slices.Clone(s.d.Tools)
	return d
}

func (s *memSource) OnChange(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners = append(s.listeners, f)
}

func (s *memSource) setTools(tools ...string) {
	s.mu.Lock()
	s.d.Tools = nil
	for _, t := range tools {
		s.d.Tools = append(s.d.Tools, json.RawMessage(t))
	}
	fs := slices.Clone(s.listeners)
	s.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

func (s *memSource) describeCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.describes
}

// weatherServer is a server with a tool, a prompt, a resource and a
// template, offering every protocol version.
func weatherServer() *memSource {
	return &memSource{d: Description{
		Name: "weather", Title: "Weather", Version: "1.4.0",
		Versions: []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}, // newest first, as the runtime lists them
		Capabilities: map[string]json.RawMessage{
			"2025-03-26": json.RawMessage(`{"tools":{"listChanged":true}}`),
			"2025-06-18": json.RawMessage(`{"tools":{"listChanged":true}}`),
			"2025-11-25": json.RawMessage(`{"tools":{"listChanged":true},"prompts":{},"resources":{}}`),
			"2026-07-28": json.RawMessage(`{"tools":{"listChanged":true},"prompts":{},"resources":{},"extensions":{"io.modelcontextprotocol/server-card":{}}}`),
		},
		Tools:             []json.RawMessage{json.RawMessage(`{"name":"forecast","description":"The forecast for a city","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`)},
		Prompts:           []json.RawMessage{json.RawMessage(`{"name":"plan_trip","arguments":[{"name":"city","required":true}]}`)},
		Resources:         []json.RawMessage{json.RawMessage(`{"uri":"weather://stations","name":"stations","mimeType":"application/json"}`)},
		ResourceTemplates: []json.RawMessage{json.RawMessage(`{"uriTemplate":"weather://stations/{id}","name":"station"}`)},
	}}
}

func weatherOptions() Options {
	return Options{Name: "io.github.example/weather", Description: "Forecasts and station data for any city"}
}

var (
	schemaOnce sync.Once
	cardSchema *jsonschema.Schema
	schemaErr  error
)

// mustBeValidCard fails t unless doc is a valid Server Card.
func mustBeValidCard(t *testing.T, doc []byte) {
	t.Helper()
	if err := validateCard(doc); err != nil {
		t.Fatalf("not a valid server card: %v\n%s", err, doc)
	}
}

// validateCard validates doc against testdata/server-card.schema.json.
func validateCard(doc []byte) error {
	schemaOnce.Do(func() {
		raw, err := os.ReadFile("testdata/server-card.schema.json")
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		c.AssertFormat = true
		if schemaErr = c.AddResource("server-card.schema.json", bytes.NewReader(raw)); schemaErr != nil {
			return
		}
		cardSchema, schemaErr = c.Compile("server-card.schema.json")
	})
	if schemaErr != nil {
		return schemaErr
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return err
	}
	return cardSchema.Validate(v)
}
