// A small MCP Apps host, bundled for the browser by browser.mjs: the
// TypeScript client SDK connects to the MCP server at /mcp (same origin:
// serve.mjs forwards it), and the ext-apps AppBridge connects the page a
// tool names to the host. What a real host does, in order:
//
//  1. connect, declaring io.modelcontextprotocol/ui in capabilities.extensions;
//  2. list the tools and find the page the tool names (_meta.ui.resourceUri);
//  3. read the page (resources/read: text/html;profile=mcp-app and _meta.ui);
//  4. render it in a sandboxed iframe (an opaque origin, scripts only) under
//     the Content Security Policy built from the page's _meta.ui.csp;
//  5. answer ui/initialize, then call the tool and hand the page its input
//     and result (ui/notifications/tool-input, tool-result);
//  6. forward the page's tools/call to the server, refusing tools whose
//     visibility leaves out "app".
//
// The query string picks the tool (?tool=show_notes), its arguments
// (&args={"contains":"x"}) and the protocol era (&era=modern pins
// 2026-07-28; the default is a 2025-11-25 session). window.hostState tells
// the test what happened.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  getToolUiResourceUri,
} from "@modelcontextprotocol/ext-apps/app-bridge";

const EXTENSION = "io.modelcontextprotocol/ui";
const state = (window.hostState = { phase: "starting", log: [], refused: [] });

function log(line) {
  state.log.push(line);
  const el = document.getElementById("log");
  el.textContent += line + "\n";
}

// cspFor builds the page's policy the way the specification describes it:
// nothing beyond the page itself unless _meta.ui.csp declares origins.
function cspFor(csp = {}) {
  const list = (origins, fallback) => (origins && origins.length ? origins.join(" ") : fallback);
  const resources = list(csp.resourceDomains, "");
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`,
    `style-src 'self' 'unsafe-inline' ${resources}`,
    `img-src 'self' data: ${resources}`,
    `font-src 'self' ${resources}`,
    `media-src 'self' data: ${resources}`,
    `connect-src ${list(csp.connectDomains, "'none'")}`,
    `frame-src ${list(csp.frameDomains, "'none'")}`,
    "object-src 'none'",
    `base-uri ${list(csp.baseUriDomains, "'self'")}`,
  ].join("; ");
}

// withPolicy puts the policy first in the document's head, before any script.
function withPolicy(html, policy) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, "&quot;")}">`;
  const head = /<head[^>]*>/i.exec(html);
  if (head) {
    return html.slice(0, head.index + head[0].length) + meta + html.slice(head.index + head[0].length);
  }
  return meta + html;
}

async function main() {
  const params = new URLSearchParams(location.search);
  const toolName = params.get("tool");
  const args = JSON.parse(params.get("args") || "{}");
  const modern = params.get("era") === "modern";

  const client = new Client(
    { name: "mcpgen-apptest-host", version: "1.0.0" },
    {
      capabilities: { extensions: { [EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
      ...(modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  state.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
  state.serverExtensions = client.getServerCapabilities()?.extensions ?? null;
  log(`connected (${modern ? "2026-07-28" : "session"}); extensions: ${JSON.stringify(state.serverExtensions)}`);

  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  const tool = byName.get(toolName);
  if (!tool) throw new Error(`no tool ${toolName}`);
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`tool ${toolName} names no page`);
  state.modelTools = tools.filter((t) => (t._meta?.ui?.visibility ?? ["model", "app"]).includes("model")).map((t) => t.name);

  const read = await client.readResource({ uri });
  const page = read.contents.find((c) => c.uri === uri);
  if (!page || page.mimeType !== RESOURCE_MIME_TYPE) {
    throw new Error(`${uri} came back as ${page?.mimeType}, not ${RESOURCE_MIME_TYPE}`);
  }
  const ui = page._meta?.ui ?? {};
  state.pageMeta = page._meta ?? null;
  log(`read ${uri} (${page.text.length} characters, _meta.ui ${JSON.stringify(ui)})`);

  const iframe = document.createElement("iframe");
  iframe.id = "app";
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.title = uri;
  if (ui.prefersBorder === false) iframe.style.border = "none";
  document.getElementById("frame").append(iframe);

  const bridge = new AppBridge(
    client,
    { name: "mcpgen-apptest-host", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: { theme: "light", displayMode: "inline", platform: "web" } },
  );
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = resolve;
  });
  // The connection must exist before the page's script runs, so the frame
  // gets its document after connect.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  // After connect, which installs a forwarding oncalltool: the host decides
  // what a page may call.
  bridge.oncalltool = async (call, extra) => {
    const target = byName.get(call.name);
    const visibility = target?._meta?.ui?.visibility ?? ["model", "app"];
    if (!target || !visibility.includes("app")) {
      state.refused.push(call.name);
      throw new Error(`the page may not call ${call.name}`);
    }
    log(`page calls ${call.name} ${JSON.stringify(call.arguments ?? {})}`);
    return client.callTool(call, { signal: extra?.mcpReq?.signal });
  };
  iframe.srcdoc = withPolicy(page.text, cspFor(ui.csp));

  await initialized;
  log("page initialized");
  await bridge.sendToolInput({ arguments: args });
  const result = await client.callTool({ name: toolName, arguments: args });
  state.toolText = (result.content ?? []).filter((b) => b.type === "text").map((b) => b.text);
  log(`${toolName} returned ${JSON.stringify(result.structuredContent ?? null)}`);
  await bridge.sendToolResult(result);
  state.phase = "ready";
}

main().catch((err) => {
  state.phase = "failed";
  state.error = String(err && err.stack ? err.stack : err);
  log("error: " + state.error);
});
