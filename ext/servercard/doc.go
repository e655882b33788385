// Package servercard serves an MCP server's Server Card (SEP-2127, the
// io.modelcontextprotocol/server-card extension): a public JSON document
// that says who the server is and how to reach it, read before connecting.
//
// The card is derived from what the server knows of itself (serverInfo,
// the protocol versions it offers, its authorization) and what Options add
// (the registry name, a description, a title, icons, a website, the
// repository, headers a client sends). It names no tools, prompts or
// resources and no capabilities: the extension leaves those to the
// connection, where they may vary by principal.
//
// # Where it is served
//
// The extension reserves the Streamable HTTP endpoint's path plus
// "/server-card" (/mcp/server-card), served as application/mcp-server-card+json.
// Earlier revisions named .well-known locations that clients and crawlers
// still probe, so the card is also served, as application/json (unless
// Options.NoLegacy), at
//
//   - /.well-known/mcp-server-card, the same card (the June 2026 revision);
//   - /.well-known/mcp/server-card and /.well-known/mcp/server-card.json, the
//     enumerating document of the January 2026 revision and of SEP-1649
//     deployments: the card plus the newest version's capabilities and the
//     tool, prompt, resource and template definitions (see
//     Options.Primitives), kept true as the lists change.
//
// Every location answers GET and HEAD with a strong ETag computed from the
// bytes (If-None-Match gives 304), Cache-Control public with a max-age
// (the extension's 1h for the card; at most 1m and must-revalidate for the
// enumerating document), the CORS headers the extension requires
// (Access-Control-Allow-Origin: *, ETag exposed) and the preflight
// (OPTIONS); other methods get 405. The documents are built once per change
// of the server (Source.OnChange) and kept.
//
// # Revisions implemented
//
// The card and its discovery rules are those of the extension repository
// (experimental-ext-server-card) at commit 8924e08, 2026-07-24: schema.ts
// with the v1 $schema URL, docs/discovery.md with the reserved
// /server-card location, the CORS headers and ETag revalidation. The
// legacy enumerating document follows SEP-2127 as first proposed
// (2026-01-21).
//
// # Use
//
// Enable(server, Options{...}) is all a runtime.Server needs: it declares
// the extension, mounts the documents through the runtime's extension
// routes (Serve and ListenAndServe serve them beside /mcp; a Server on a
// mux of the user's needs Server.Routes mounted too), builds the card from
// the server's description (runtime.Host.Describe) and rebuilds it after
// every change (runtime.Host.OnChange). New and Routes serve the card of
// any Source on a mux of the caller's, for a server elsewhere or an MCP
// endpoint at another path.
package servercard
