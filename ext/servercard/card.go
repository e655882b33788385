package servercard

import "encoding/json"

// ExtensionID identifies server cards in capabilities.extensions.
const ExtensionID = "io.modelcontextprotocol/server-card"

// SchemaURL is the $schema every card carries: the v1 Server Card schema.
// The extension versions the schema by its vN segment, not by date.
const SchemaURL = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"

// MediaType is the card's media type, the Content-Type of the reserved
// location and what a client asks for in Accept.
const MediaType = "application/mcp-server-card+json"

// PathSuffix is appended to the Streamable HTTP endpoint's path for the
// location the extension reserves: /mcp serves its card at /mcp/server-card.
const PathSuffix = "/server-card"

// Card is a Server Card: who the server is and how to reach it, before any
// connection. It lists no tools, prompts or resources and no capabilities:
// those vary by client and principal and are learned by connecting. Field
// names and limits are the extension's schema (schema.ts); the schema's
// objects are open, so a reader ignores members it does not know.
type Card struct {
	// Schema is SchemaURL.
	Schema string `json:"$schema"`
	// Name is reverse-DNS, one slash: "io.github.owner/weather".
	Name string `json:"name"`
	// Version is the server's version (serverInfo.version), never a range.
	Version string `json:"version"`
	// Description says what the server does, in 1 to 100 characters.
	Description string `json:"description"`
	// Title is a display name, 1 to 100 characters.
	Title string `json:"title,omitempty"`
	// WebsiteURL is the server's homepage or documentation.
	WebsiteURL string `json:"websiteUrl,omitempty"`
	// Repository is where its source is.
	Repository *Repository `json:"repository,omitempty"`
	// Icons are images a client may show for it.
	Icons []Icon `json:"icons,omitempty"`
	// Remotes are the endpoints it serves; this package lists its
	// Streamable HTTP endpoint.
	Remotes []Remote `json:"remotes,omitempty"`
	// Meta is the card's extension point: members keyed by reverse-DNS
	// prefixes ("mcpgen.dev/authorization").
	Meta map[string]json.RawMessage `json:"_meta,omitempty"`
}

// Repository says where the server's source is. The registry's server.json
// uses the same shape.
type Repository struct {
	// URL is the repository's web address, e.g. https://github.com/o/r.
	URL string `json:"url"`
	// Source names the host ("github", "gitlab").
	Source string `json:"source"`
	// Subfolder is the server's folder in a monorepo, a clean relative path.
	Subfolder string `json:"subfolder,omitempty"`
	// ID is the host's identifier of the repository, stable across renames.
	ID string `json:"id,omitempty"`
}

// Icon is an image a client may show (the protocol's Icon).
type Icon struct {
	// Src is an https: or data: URI.
	Src string `json:"src"`
	// MIMEType overrides a missing or generic type ("image/png").
	MIMEType string `json:"mimeType,omitempty"`
	// Sizes are "48x48"-style sizes, or "any".
	Sizes []string `json:"sizes,omitempty"`
	// Theme is "light" or "dark": the background the icon is made for.
	Theme string `json:"theme,omitempty"`
}

// Remote is one HTTP endpoint of the server.
type Remote struct {
	// Type is "streamable-http" (or "sse" for the old HTTP+SSE transport).
	Type string `json:"type"`
	// URL is the endpoint, absolute; {name} placeholders are filled from
	// Variables.
	URL string `json:"url"`
	// Headers are the HTTP headers a client sends or may send.
	Headers []KeyValueInput `json:"headers,omitempty"`
	// Variables fill the URL's {name} placeholders.
	Variables map[string]Input `json:"variables,omitempty"`
	// SupportedProtocolVersions are the MCP versions the endpoint speaks,
	// so a client picks one before it connects.
	SupportedProtocolVersions []string `json:"supportedProtocolVersions,omitempty"`
}

// Input describes a value a client asks its user for, or a preset one.
type Input struct {
	Description string   `json:"description,omitempty"`
	IsRequired  bool     `json:"isRequired,omitempty"`
	IsSecret    bool     `json:"isSecret,omitempty"`
	Format      string   `json:"format,omitempty"` // "string", "number", "boolean" or "filepath"
	Default     string   `json:"default,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
	Value       string   `json:"value,omitempty"`
	Choices     []string `json:"choices,omitempty"`
}

// KeyValueInput is a named Input: an HTTP header of a Remote.
type KeyValueInput struct {
	// Name is the header's name.
	Name string `json:"name"`
	Input
	// Variables fill {name} placeholders of Value.
	Variables map[string]Input `json:"variables,omitempty"`
}
