package servercard

import "encoding/json"

// Source is what a card is derived from: the server it describes. The
// runtime's read-only description of a server satisfies it through a small
// adapter; a test or a program that serves a card for a server elsewhere
// can implement it directly.
type Source interface {
	// Describe returns what the server serves now. The card reads it and
	// keeps nothing of it but the document it builds.
	Describe() Description
	// OnChange registers f to be called after every change of what
	// Describe returns (a tool added or removed, a list change announced).
	// f is quick and safe to call from any goroutine.
	OnChange(f func())
}

// Description is the server as a client would learn it by connecting.
type Description struct {
	// Name, Title and Version are the serverInfo.
	Name, Title, Version string
	// Versions are the protocol versions the server offers, in any order.
	Versions []string
	// Capabilities are the capabilities object each offered version
	// declares (initialize in a legacy session, server/discover in
	// 2026-07-28), by version.
	Capabilities map[string]json.RawMessage
	// Tools, Prompts, Resources and ResourceTemplates are the definitions as
	// the list methods give them.
	Tools, Prompts, Resources, ResourceTemplates []json.RawMessage
	// Auth is the server's authorization when it is an OAuth resource
	// server, nil when it is not.
	Auth *Auth
}

// Auth is what the server publishes of its authorization in its Protected
// Resource Metadata (RFC 9728).
type Auth struct {
	// Resource is the canonical resource URI: the URL clients dial.
	Resource string
	// AuthorizationServers are the issuers whose tokens it accepts.
	AuthorizationServers []string
	// ScopesSupported are the scopes the metadata advertises.
	ScopesSupported []string
	// MetadataPath is the path of its metadata document
	// ("/.well-known/oauth-protected-resource/mcp").
	MetadataPath string
	// ListsVaryByPrincipal says that the list methods show each principal
	// only what its scopes allow: a public document must not list them.
	ListsVaryByPrincipal bool
}

// newestVersion is the newest of versions; "" when there are none.
func newestVersion(versions []string) string {
	newest := ""
	for _, v := range versions {
		if v > newest { // protocol versions are dates, YYYY-MM-DD
			newest = v
		}
	}
	return newest
}
