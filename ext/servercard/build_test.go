package servercard

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// The schema transcription itself: it accepts the extension's minimal and
// templated cards and refuses each constraint broken, so a card the tests
// call valid is valid for a reason.
func TestSchemaAcceptsAndRefuses(t *testing.T) {
	valid := map[string]string{
		"minimal": `{"$schema":"` + SchemaURL + `","name":"example-org/minimal","version":"1.0.0","description":"Smallest valid Server Card."}`,
		"templated remote": `{"$schema":"` + SchemaURL + `","name":"example-org/with-remote","version":"2.1.0","description":"d",
			"remotes":[{"type":"streamable-http","url":"https://{tenant}.example.com/mcp","variables":{"tenant":{"isRequired":true}},
			"headers":[{"name":"Authorization","isSecret":true,"value":"Bearer {token}","variables":{"token":{"isSecret":true}}}]}]}`,
		"unknown members (open objects)": `{"$schema":"` + SchemaURL + `","name":"a/b","version":"1","description":"d","tools":[],"x":1}`,
	}
	for name, doc := range valid {
		if err := validateCard([]byte(doc)); err != nil {
			t.Errorf("%s: refused: %v", name, err)
		}
	}
	invalid := map[string]string{
		"no slash in the name":     `{"$schema":"` + SchemaURL + `","name":"no-slash","version":"1","description":"d"}`,
		"date-versioned $schema":   `{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-11-25/server-card.schema.json","name":"a/b","version":"1","description":"d"}`,
		"registry $schema":         `{"$schema":"https://static.modelcontextprotocol.io/schemas/v1/server.schema.json","name":"a/b","version":"1","description":"d"}`,
		"no $schema":               `{"name":"a/b","version":"1","description":"d"}`,
		"no description":           `{"$schema":"` + SchemaURL + `","name":"a/b","version":"1"}`,
		"description of 101 chars": `{"$schema":"` + SchemaURL + `","name":"a/b","version":"1","description":"` + strings.Repeat("x", 101) + `"}`,
		"a websocket remote":       `{"$schema":"` + SchemaURL + `","name":"a/b","version":"1","description":"d","remotes":[{"type":"websocket","url":"https://x/mcp"}]}`,
		"an ftp remote":            `{"$schema":"` + SchemaURL + `","name":"a/b","version":"1","description":"d","remotes":[{"type":"sse","url":"ftp://x/mcp"}]}`,
		"an icon theme":            `{"$schema":"` + SchemaURL + `","name":"a/b","version":"1","description":"d","icons":[{"src":"https://x/i.png","theme":"blue"}]}`,
		"a header without a name":  `{"$schema":"` + SchemaURL + `","name":"a/b","version":"1","description":"d","remotes":[{"type":"sse","url":"https://x","headers":[{"value":"v"}]}]}`,
		"an input format":          `{"$schema":"` + SchemaURL + `","name":"a/b","version":"1","description":"d","remotes":[{"type":"sse","url":"https://x","headers":[{"name":"h","format":"date"}]}]}`,
	}
	for name, doc := range invalid {
		if err := validateCard([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestBuildIsAValidCard(t *testing.T) {
	src := weatherServer()
	opts := weatherOptions()
	opts.Title = "Weather Everywhere"
	opts.WebsiteURL = "https://weather.example.com/docs"
	opts.Repository = &Repository{URL: "https://github.com/example/weather", Source: "github", Subfolder: "servers/weather"}
	opts.Icons = []Icon{{Src: "https://weather.example.com/icon.png", MIMEType: "image/png", Sizes: []string{"48x48"}, Theme: "light"}}
	opts.Headers = []KeyValueInput{{Name: "X-Region", Input: Input{Description: "Service region", Default: "eu", Choices: []string{"eu", "us"}}}}
	opts.Meta = map[string]json.RawMessage{"com.example/tier": json.RawMessage(`"free"`)}

	card, err := Build(src.Describe(), opts, "https://weather.example.com/mcp")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(card)
	mustBeValidCard(t, raw)
	if card.Version != "1.4.0" || card.Title != "Weather Everywhere" || card.Name != opts.Name {
		t.Errorf("identity: %+v", card)
	}
	if len(card.Remotes) != 1 || card.Remotes[0].URL != "https://weather.example.com/mcp" || card.Remotes[0].Type != "streamable-http" {
		t.Fatalf("remotes: %+v", card.Remotes)
	}
	if got := strings.Join(card.Remotes[0].SupportedProtocolVersions, ","); got != "2025-03-26,2025-06-18,2025-11-25,2026-07-28" {
		t.Errorf("supportedProtocolVersions = %s", got)
	}
	// The card lists neither primitives nor capabilities.
	for _, member := range []string{`"tools"`, `"capabilities"`, `"prompts"`, `"forecast"`} {
		if strings.Contains(string(raw), member) {
			t.Errorf("the card carries %s: %s", member, raw)
		}
	}
	// The server's title is the default.
	opts.Title = ""
	if card, _ = Build(src.Describe(), opts, ""); card.Title != "Weather" || card.Remotes != nil {
		t.Errorf("title %q, remotes %v", card.Title, card.Remotes)
	}
}

func TestBuildWithAuthorization(t *testing.T) {
	src := weatherServer()
	src.d.Auth = &Auth{Resource: "https://weather.example.com/mcp", AuthorizationServers: []string{"https://id.example.com"},
		ScopesSupported: []string{"forecast:read"}, MetadataPath: "/.well-known/oauth-protected-resource/mcp"}
	card, err := Build(src.Describe(), weatherOptions(), "https://weather.example.com/mcp")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(card)
	mustBeValidCard(t, raw)
	var hint struct {
		Resource             string   `json:"resource"`
		ResourceMetadata     string   `json:"resourceMetadata"`
		AuthorizationServers []string `json:"authorizationServers"`
		ScopesSupported      []string `json:"scopesSupported"`
	}
	if err := json.Unmarshal(card.Meta[metaAuthorization], &hint); err != nil {
		t.Fatal(err)
	}
	if hint.ResourceMetadata != "https://weather.example.com/.well-known/oauth-protected-resource/mcp" ||
		hint.AuthorizationServers[0] != "https://id.example.com" || hint.ScopesSupported[0] != "forecast:read" {
		t.Errorf("authorization hint: %+v", hint)
	}

	// The legacy document says authentication is required and, by default,
	// lists nothing the endpoint keeps behind a token.
	legacy, err := BuildLegacy(src.Describe(), weatherOptions(), "https://weather.example.com/mcp")
	if err != nil {
		t.Fatal(err)
	}
	mustBeValidCard(t, legacy)
	if strings.Contains(string(legacy), "forecast\"") || !strings.Contains(string(legacy), `"authentication":{"required":true,"schemes":["oauth2","bearer"]}`) {
		t.Errorf("legacy document with auth: %s", legacy)
	}
	opts := weatherOptions()
	opts.Primitives = PrimitivesListed
	if legacy, _ = BuildLegacy(src.Describe(), opts, ""); !strings.Contains(string(legacy), `"name":"forecast"`) {
		t.Errorf("PrimitivesListed did not list the tools: %s", legacy)
	}
	// Lists that vary by principal are never listed.
	src.d.Auth.ListsVaryByPrincipal = true
	if legacy, _ = BuildLegacy(src.Describe(), opts, ""); strings.Contains(string(legacy), `"tools":[`) {
		t.Errorf("per-principal lists were listed: %s", legacy)
	}
}

func TestBuildLegacyEnumerates(t *testing.T) {
	src := weatherServer()
	raw, err := BuildLegacy(src.Describe(), weatherOptions(), "http://127.0.0.1:8080/mcp")
	if err != nil {
		t.Fatal(err)
	}
	mustBeValidCard(t, raw)
	var doc struct {
		Capabilities                                 map[string]json.RawMessage
		Tools, Prompts, Resources, ResourceTemplates []map[string]any
		Remotes                                      []map[string]any
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Capabilities["extensions"]; !ok {
		t.Errorf("capabilities are not the newest version's: %s", raw)
	}
	if len(doc.Tools) != 1 || doc.Tools[0]["name"] != "forecast" || len(doc.Prompts) != 1 || len(doc.Resources) != 1 || len(doc.ResourceTemplates) != 1 {
		t.Errorf("primitives: %s", raw)
	}
	if _, ok := doc.Remotes[0]["authentication"]; ok {
		t.Errorf("a server without authorization says it needs it: %s", raw)
	}
	opts := weatherOptions()
	opts.Primitives = PrimitivesOmitted
	if raw, _ = BuildLegacy(src.Describe(), opts, ""); strings.Contains(string(raw), `"tools":[`) {
		t.Errorf("PrimitivesOmitted listed the tools: %s", raw)
	}
}

func TestOptionsErrorsNameTheField(t *testing.T) {
	long := strings.Repeat("x", 101)
	cases := []struct {
		field string
		edit  func(*Options)
	}{
		{"Name", func(o *Options) { o.Name = "" }},
		{"Name", func(o *Options) { o.Name = "weather" }},
		{"Name", func(o *Options) { o.Name = "io.github.example/weather/v2" }},
		{"Name", func(o *Options) { o.Name = "-bad.example/weather" }},
		{"Name", func(o *Options) { o.Name = "io.github.example/" + strings.Repeat("w", 200) }},
		{"Description", func(o *Options) { o.Description = "" }},
		{"Description", func(o *Options) { o.Description = long }},
		{"Title", func(o *Options) { o.Title = long }},
		{"Version", func(o *Options) { o.Version = "^1.2.3" }},
		{"Version", func(o *Options) { o.Version = "1.x" }},
		{"Version", func(o *Options) { o.Version = "latest" }},
		{"WebsiteURL", func(o *Options) { o.WebsiteURL = "/docs" }},
		{"Repository.URL", func(o *Options) { o.Repository = &Repository{URL: "github.com/x/y", Source: "github"} }},
		{"Repository.Source", func(o *Options) { o.Repository = &Repository{URL: "https://github.com/x/y"} }},
		{"Icons[0].Src", func(o *Options) { o.Icons = []Icon{{Src: "http://x/i.png"}} }},
		{"Icons[0].Theme", func(o *Options) { o.Icons = []Icon{{Src: "https://x/i.png", Theme: "blue"}} }},
		{"URL", func(o *Options) { o.URL = "ws://x/mcp" }},
		{"URL", func(o *Options) { o.URL = "https://x/mcp?tenant=a" }},
		{"Headers[0].Name", func(o *Options) { o.Headers = []KeyValueInput{{}} }},
		{"Headers[0].Format", func(o *Options) { o.Headers = []KeyValueInput{{Name: "h", Input: Input{Format: "date"}}} }},
		{`Meta["not a key"]`, func(o *Options) { o.Meta = map[string]json.RawMessage{"not a key": json.RawMessage(`1`)} }},
		{`Meta["mcpgen.dev/authorization"]`, func(o *Options) { o.Meta = map[string]json.RawMessage{metaAuthorization: json.RawMessage(`1`)} }},
		{`Meta["com.example/x"]`, func(o *Options) { o.Meta = map[string]json.RawMessage{"com.example/x": json.RawMessage(`{`)} }},
		{"Primitives", func(o *Options) { o.Primitives = 7 }},
		{"MaxAge", func(o *Options) { o.MaxAge = -1 }},
	}
	for _, c := range cases {
		o := weatherOptions()
		c.edit(&o)
		err := o.Validate()
		if !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), ": "+c.field+": ") {
			t.Errorf("%s: got %v", c.field, err)
		}
	}
	o := weatherOptions()
	if err := o.Validate(); err != nil {
		t.Errorf("valid options refused: %v", err)
	}
}

func TestNewRefusesWhatEveryRequestWouldFail(t *testing.T) {
	src := weatherServer()
	src.d.Version = "^1.0"
	if _, err := New(src, weatherOptions(), "/mcp"); err == nil || !strings.Contains(err.Error(), "Options.Version") {
		t.Errorf("a server version that is a range: %v", err)
	}
	opts := weatherOptions()
	opts.Version = "1.4.1"
	if _, err := New(src, opts, "/mcp"); err != nil {
		t.Errorf("Options.Version did not override: %v", err)
	}
	if _, err := New(weatherServer(), weatherOptions(), "mcp"); err == nil {
		t.Error("a relative MCP path was accepted")
	}
	if _, err := New(nil, weatherOptions(), ""); err == nil {
		t.Error("a nil Source was accepted")
	}
}

func TestCardLocation(t *testing.T) {
	for in, want := range map[string]string{
		"https://host/mcp":              "https://host/mcp/server-card",
		"https://host/mcp/":             "https://host/mcp/server-card",
		"https://host:8443/a/mcp?x=1":   "https://host:8443/a/mcp/server-card",
		"http://127.0.0.1:8080":         "http://127.0.0.1:8080/server-card",
		"https://host/tenants/acme/mcp": "https://host/tenants/acme/mcp/server-card",
	} {
		if got, err := CardURL(in); err != nil || got != want {
			t.Errorf("CardURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := CardURL("/mcp"); err == nil {
		t.Error("CardURL of a path alone succeeded")
	}
}
