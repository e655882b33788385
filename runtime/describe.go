package runtime

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Description is what a server serves, read-only, as a client would learn
// it: who it is, what it declares in each protocol version, and the
// definitions of its tools, prompts, resources and templates as it lists
// them. An extension that publishes the server (a server card, a registry
// entry) builds on it (Server.Describe, Host.Describe), and Host.OnChange
// says when it changes. It is a snapshot: changing it changes nothing.
type Description struct {
	// Name, Title and Version are the serverInfo (Options.Name, Title,
	// Version).
	Name, Title, Version string
	// Instructions are Options.Instructions.
	Instructions string
	// Versions are the protocol versions the server offers, oldest first.
	Versions []string
	// Capabilities are the capabilities object of each offered version:
	// what a legacy session's initialize result declares, and what
	// 2026-07-28's server/discover does.
	Capabilities map[string]json.RawMessage
	// Tools, Prompts, Resources and ResourceTemplates are the definitions
	// as tools/list, prompts/list, resources/list (the fixed resources;
	// a template's listed resources vary) and resources/templates/list give
	// them in 2026-07-28, in registration order.
	Tools, Prompts, Resources, ResourceTemplates []json.RawMessage
	// Extensions are the identifiers of the extensions added, in order.
	Extensions []string
	// Auth is the server's authorization, when it runs with Options.Auth:
	// nil otherwise.
	Auth *AuthDescription
}

// AuthDescription is the part of Options.Auth that the server publishes in
// its Protected Resource Metadata.
type AuthDescription struct {
	// Resource is the canonical resource URI (Auth.Resource).
	Resource string
	// AuthorizationServers are the issuers whose tokens are accepted.
	AuthorizationServers []string
	// ScopesSupported are the scopes the metadata advertises.
	ScopesSupported []string
	// MetadataPath is where the server answers its metadata document.
	MetadataPath string
	// ListsVaryByPrincipal: the list methods show each principal only what
	// its scopes allow (Auth.FilterLists), so a public document must not
	// list them.
	ListsVaryByPrincipal bool
}

// describe is Server.Describe.
func (d *dispatcher) describe() *Description {
	desc := &Description{Name: d.info.name, Title: d.info.title, Version: d.info.version,
		Instructions: d.instructions, Versions: slices.Clone(d.versions.all), Capabilities: map[string]json.RawMessage{}}
	for _, v := range d.versions.all {
		desc.Capabilities[v] = d.capabilities(v)
	}
	f := d.features
	f.mu.RLock()
	for _, t := range f.tools.items {
		desc.Tools = append(desc.Tools, bytes.Clone(t.Definition))
	}
	for _, p := range f.prompts.items {
		desc.Prompts = append(desc.Prompts, bytes.Clone(p.Definition))
	}
	for _, r := range f.resources.items {
		desc.Resources = append(desc.Resources, bytes.Clone(r.Definition))
	}
	for _, t := range f.templates.items {
		desc.ResourceTemplates = append(desc.ResourceTemplates, bytes.Clone(t.Definition))
	}
	f.mu.RUnlock()
	for _, x := range d.extensionsNow() {
		desc.Extensions = append(desc.Extensions, x.ID)
	}
	if a := d.auth; a != nil {
		scopes := a.cfg.ScopesSupported // as the metadata document advertises them
		if scopes == nil {
			scopes = a.scopes()
		}
		desc.Auth = &AuthDescription{Resource: a.cfg.Resource, AuthorizationServers: slices.Clone(a.cfg.AuthorizationServers),
			ScopesSupported: slices.Clone(scopes), MetadataPath: a.metadataPath, ListsVaryByPrincipal: a.cfg.FilterLists}
	}
	return desc
}

// serverIdentity is the serverInfo, member by member.
type serverIdentity struct {
	name, title, version string
}
