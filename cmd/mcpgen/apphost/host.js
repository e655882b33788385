// The host page of `mcpgen preview`, an MCP Apps host for development,
// and the host of the browser test (apptest/): the TypeScript client SDK
// connects to the MCP server at /mcp (same origin: the preview forwards
// it), and the ext-apps AppBridge connects the page a tool names to this
// host. apptest/bundle.mjs bundles it into host.bundle.js, which the
// mcpgen binary embeds. What it does, as a host does:
//
//  1. connect, declaring io.modelcontextprotocol/ui in capabilities.extensions;
//  2. list the tools and offer those that name a page (_meta.ui.resourceUri);
//  3. check the arguments the user typed against the tool's inputSchema
//     (POST /check: the validator mcpgen's runtime uses);
//  4. read the page (resources/read: text/html;profile=mcp-app and _meta.ui);
//  5. render it in a sandboxed iframe (an opaque origin, scripts only, the
//     permissions its _meta.ui.permissions asks for) under the Content
//     Security Policy built from its _meta.ui.csp;
//  6. answer ui/initialize, then call the tool and hand the page its input
//     and result (ui/notifications/tool-input, tool-result);
//  7. forward the page's tools/call to the server, refusing tools whose
//     visibility leaves out "app"; log what else the page asks for.
//
// The query string picks the tool and calls it at once (?tool=show_notes),
// with its arguments (&args={"contains":"x"}) and the protocol era
// (&era=modern pins 2026-07-28, &era=session a 2025-11-25 session; the
// default is what the preview found the server speaks). A call writes its
// query string into the address bar, so reloading repeats it.
// window.hostState tells the browser test what happened.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  getToolUiResourceUri,
} from "@modelcontextprotocol/ext-apps/app-bridge";

const EXTENSION = "io.modelcontextprotocol/ui";
const HOST_INFO = { name: "mcpgen-preview", version: "1.0.0" };
const INIT_WAIT_MS = 10000; // a page must send ui/notifications/initialized within this
const TEARDOWN_WAIT_MS = 3000; // and answer ui/resource-teardown within this
const MAX_LIST_PAGES = 50; // tools/list pages followed
const MAX_LOG_LINES = 1000; // the log keeps the last ones

const state = (window.hostState = { phase: "starting", log: [], refused: [], problems: [], calls: 0 });
const $ = (id) => document.getElementById(id);

function log(line) {
  state.log.push(line);
  if (state.log.length > MAX_LOG_LINES) state.log.shift();
  const el = $("log");
  el.textContent = state.log.join("\n");
  el.scrollTop = el.scrollHeight;
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

// allowFor is the iframe's permissions policy: what _meta.ui.permissions
// asks for, and nothing else.
function allowFor(permissions = {}) {
  const features = { camera: "camera", microphone: "microphone", geolocation: "geolocation", clipboardWrite: "clipboard-write" };
  return Object.keys(permissions)
    .filter((k) => features[k])
    .map((k) => features[k])
    .join("; ");
}

const visibility = (tool) => tool._meta?.ui?.visibility ?? ["model", "app"];

// skeleton is the arguments a tool's form starts from: its required
// properties, each with its default or an empty value of its type.
function skeleton(schema) {
  const empty = { string: "", number: 0, integer: 0, boolean: false, array: [], object: {}, null: null };
  const out = {};
  for (const name of schema?.required ?? []) {
    const p = schema.properties?.[name] ?? {};
    const type = Array.isArray(p.type) ? p.type[0] : p.type;
    if (p.default !== undefined) out[name] = p.default;
    else if (p.const !== undefined) out[name] = p.const;
    else if (Array.isArray(p.enum) && p.enum.length) out[name] = p.enum[0];
    else out[name] = type in empty ? empty[type] : "";
  }
  return out;
}

// pageText is the HTML of a resources/read content: text, or a base64 blob.
function pageText(content) {
  if (typeof content.text === "string") return content.text;
  if (typeof content.blob === "string") {
    return new TextDecoder().decode(Uint8Array.from(atob(content.blob), (c) => c.charCodeAt(0)));
  }
  throw new Error(`${content.uri} has neither text nor blob`);
}

function within(ms, promise, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

let client = null;
let era = "session";
let theme = "light";
const byName = new Map(); // every tool, by name
let selected = null; // the tool the form is for
let shown = null; // {bridge, iframe} of the page on screen

function setError(text) {
  const el = $("error");
  el.hidden = !text;
  el.textContent = text ?? "";
}

function renderTools(tools) {
  const appTools = tools.filter((t) => getToolUiResourceUri(t));
  const callable = appTools.filter((t) => visibility(t).includes("model"));
  const pageOnly = appTools.filter((t) => !visibility(t).includes("model"));
  state.appTools = callable.map((t) => t.name);
  state.pageOnlyTools = pageOnly.map((t) => t.name);
  const list = $("tools");
  list.replaceChildren();
  for (const tool of callable) {
    const li = document.createElement("li");
    const label = document.createElement("label");
    const radio = Object.assign(document.createElement("input"), { type: "radio", name: "tool", value: tool.name });
    radio.addEventListener("change", () => select(tool.name, null));
    const name = document.createElement("strong");
    name.textContent = tool.title ? `${tool.title} (${tool.name})` : tool.name;
    const uri = document.createElement("span");
    uri.className = "uri";
    uri.textContent = ` ${getToolUiResourceUri(tool)}`;
    label.append(radio, " ", name, uri);
    li.append(label);
    if (tool.description) {
      const d = document.createElement("p");
      d.className = "description";
      d.textContent = tool.description;
      li.append(d);
    }
    list.append(li);
  }
  if (callable.length === 0) {
    const li = document.createElement("li");
    li.className = "note";
    li.textContent = appTools.length
      ? "Every tool with a page is for the page only."
      : "No tool of this server names a page in _meta.ui.resourceUri.";
    list.append(li);
  }
  $("page-only").hidden = pageOnly.length === 0;
  $("page-only").textContent = `Called by the page only (visibility ["app"]): ${pageOnly.map((t) => t.name).join(", ")}`;
  const other = tools.length - appTools.length;
  $("no-page").hidden = other === 0;
  $("no-page").textContent = `${other} other tool${other === 1 ? " has" : "s have"} no page.`;
  return callable;
}

// select shows the form of a tool, with args (a JSON text) or its skeleton.
function select(name, args) {
  const tool = byName.get(name);
  if (!tool) throw new Error(`the server has no tool ${name}`);
  selected = tool;
  for (const radio of document.querySelectorAll('input[name="tool"]')) radio.checked = radio.value === name;
  $("args").value = args ?? JSON.stringify(skeleton(tool.inputSchema), null, 2);
  $("schema").textContent = JSON.stringify(tool.inputSchema ?? {}, null, 2);
  $("run").textContent = `Call ${name}`;
  $("run").disabled = false;
  showProblems([]);
}

function showProblems(problems) {
  state.problems = problems;
  const ul = $("problems");
  ul.replaceChildren(
    ...problems.map((p) => {
      const li = document.createElement("li");
      li.textContent = p;
      return li;
    }),
  );
}

// checkArguments parses the text and has the preview validate it; it
// returns the arguments, or null after showing the problems.
async function checkArguments(tool, text) {
  let args;
  try {
    args = JSON.parse(text);
  } catch (err) {
    showProblems([`not JSON: ${err.message}`]);
    return null;
  }
  const resp = await fetch("/check", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ schema: tool.inputSchema ?? { type: "object" }, arguments: args }),
  });
  if (!resp.ok) {
    showProblems([`the preview could not check them: ${await resp.text()}`]);
    return null;
  }
  const verdict = await resp.json();
  if (verdict.schemaError) {
    log(`${tool.name}: ${verdict.schemaError}; calling it unchecked`);
  } else if (verdict.problems.length) {
    showProblems(verdict.problems);
    return null;
  }
  showProblems([]);
  return args;
}

async function call() {
  const tool = selected;
  if (!tool) return;
  state.phase = "running";
  $("run").disabled = true;
  setError(null);
  try {
    const args = await checkArguments(tool, $("args").value);
    if (!args) {
      state.phase = "invalid";
      return;
    }
    const q = new URLSearchParams({ tool: tool.name, args: JSON.stringify(args), era });
    history.replaceState(null, "", `?${q}`);
    await show(tool, args);
    state.phase = "ready";
  } catch (err) {
    state.phase = "failed";
    state.error = String(err && err.stack ? err.stack : err);
    setError(String(err && err.message ? err.message : err));
    log("error: " + state.error);
  } finally {
    $("run").disabled = false;
  }
}

// teardown ends the page on screen: ui/resource-teardown, then the frame goes.
async function teardown() {
  if (!shown) return;
  const { bridge, iframe } = shown;
  shown = null;
  try {
    await bridge.teardownResource({}, { timeout: TEARDOWN_WAIT_MS });
  } catch (err) {
    log(`the page did not answer ui/resource-teardown: ${err.message ?? err}`);
  }
  await bridge.close().catch(() => {});
  iframe.remove();
}

async function show(tool, args) {
  await teardown();
  const uri = getToolUiResourceUri(tool);
  const read = await client.readResource({ uri });
  const page = read.contents.find((c) => c.uri === uri);
  if (!page || page.mimeType !== RESOURCE_MIME_TYPE) {
    throw new Error(`${uri} came back as ${page ? page.mimeType : "nothing"}, not ${RESOURCE_MIME_TYPE}`);
  }
  const html = pageText(page);
  const ui = page._meta?.ui ?? {};
  state.pageMeta = page._meta ?? null;
  log(`read ${uri} (${html.length} characters, _meta.ui ${JSON.stringify(ui)})`);

  const iframe = document.createElement("iframe");
  iframe.id = "app";
  iframe.setAttribute("sandbox", "allow-scripts");
  const allow = allowFor(ui.permissions);
  if (allow) iframe.setAttribute("allow", allow);
  iframe.title = uri;
  if (ui.prefersBorder === false) iframe.style.border = "none";
  $("frame").replaceChildren(iframe);
  $("frame-title").textContent = `Page ${uri}`;

  const bridge = new AppBridge(
    client,
    HOST_INFO,
    {
      serverTools: {},
      serverResources: {},
      logging: {},
      openLinks: {},
      message: { text: {} },
      updateModelContext: { text: {} },
      sandbox: { csp: ui.csp ?? {}, permissions: ui.permissions ?? {} },
    },
    {
      hostContext: {
        toolInfo: { tool },
        theme,
        displayMode: "inline",
        availableDisplayModes: ["inline"],
        platform: "web",
        locale: navigator.language,
        timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
        userAgent: "mcpgen-preview",
      },
    },
  );
  shown = { bridge, iframe };
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${height}px`;
  };
  bridge.onloggingmessage = ({ level, logger, data }) => log(`page log ${level}${logger ? ` ${logger}` : ""}: ${JSON.stringify(data)}`);
  bridge.onmessage = async ({ role, content }) => {
    log(`page sends the conversation a ${role} message: ${JSON.stringify(content)}`);
    return {};
  };
  bridge.onupdatemodelcontext = async (params) => {
    log(`page updates the model's context: ${JSON.stringify(params)}`);
    return {};
  };
  bridge.onopenlink = async ({ url }) => {
    const ok = /^https?:\/\//i.test(url);
    log(`page opens a link: ${url}${ok ? "" : " (refused: not http or https)"}`);
    if (ok) window.open(url, "_blank", "noopener,noreferrer");
    return ok ? {} : { isError: true };
  };
  bridge.onrequestdisplaymode = async ({ mode }) => {
    log(`page asks for display mode ${mode}; this host shows pages inline only`);
    return { mode: "inline" };
  };
  bridge.onrequestteardown = () => {
    log("page asks to be closed");
    teardown();
  };
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = resolve;
  });
  // The connection must exist before the page's script runs, so the frame
  // gets its document after connect.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  // After connect, which installs a forwarding oncalltool: the host decides
  // what a page may call.
  bridge.oncalltool = async (params, extra) => {
    const target = byName.get(params.name);
    if (!target || !visibility(target).includes("app")) {
      state.refused.push(params.name);
      log(`page calls ${params.name}: refused (its visibility leaves out "app")`);
      throw new Error(`the page may not call ${params.name}`);
    }
    log(`page calls ${params.name} ${JSON.stringify(params.arguments ?? {})}`);
    return client.callTool(params, { signal: extra?.mcpReq?.signal });
  };
  iframe.srcdoc = withPolicy(html, cspFor(ui.csp));

  await within(INIT_WAIT_MS, initialized, "the page did not send ui/notifications/initialized");
  log("page initialized");
  await bridge.sendToolInput({ arguments: args });
  let result;
  try {
    state.calls++;
    result = await client.callTool({ name: tool.name, arguments: args });
  } catch (err) {
    await bridge.sendToolCancelled({ reason: String(err && err.message ? err.message : err) });
    throw err;
  }
  state.toolText = (result.content ?? []).filter((b) => b.type === "text").map((b) => b.text);
  state.isError = Boolean(result.isError);
  $("result").textContent = JSON.stringify(result, null, 2);
  log(`${tool.name} returned ${result.isError ? "an error: " + state.toolText.join(" ") : JSON.stringify(result.structuredContent ?? null)}`);
  await bridge.sendToolResult(result);
}

async function listTools() {
  const tools = [];
  let cursor;
  for (let i = 0; i < MAX_LIST_PAGES; i++) {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    if (!page.nextCursor) return tools;
    cursor = page.nextCursor;
  }
  log(`tools/list: stopped after ${MAX_LIST_PAGES} pages`);
  return tools;
}

async function main() {
  const params = new URLSearchParams(location.search);
  const info = await (await fetch("/preview.json")).json();
  era = params.get("era") === "modern" || params.get("era") === "session" ? params.get("era") : info.era;
  theme = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  $("theme").value = theme;
  document.body.classList.toggle("dark", theme === "dark");
  $("era").value = era;
  $("era").addEventListener("change", () => {
    const q = new URLSearchParams(location.search);
    q.set("era", $("era").value);
    location.search = `?${q}`;
  });
  $("theme").addEventListener("change", () => {
    theme = $("theme").value;
    document.body.classList.toggle("dark", theme === "dark");
    shown?.bridge.sendHostContextChange({ theme });
  });
  $("call").addEventListener("submit", (e) => {
    e.preventDefault();
    call();
  });
  $("args").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      call();
    }
  });

  const who = info.name ? `${info.name} ${info.version} at ${info.server}` : info.server;
  client = new Client(HOST_INFO, {
    capabilities: { extensions: { [EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
    ...(era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
  });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  state.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
  state.serverExtensions = client.getServerCapabilities()?.extensions ?? null;
  $("server").textContent = `${who} · ${state.protocolVersion ?? era}`;
  log(`connected to ${info.server} (${era === "modern" ? "2026-07-28" : "a session"}); extensions: ${JSON.stringify(state.serverExtensions)}`);

  const tools = await listTools();
  for (const t of tools) byName.set(t.name, t);
  state.modelTools = tools.filter((t) => visibility(t).includes("model")).map((t) => t.name);
  const callable = renderTools(tools);

  const wanted = params.get("tool");
  if (wanted) {
    select(wanted, params.get("args"));
    await call();
    return;
  }
  if (callable.length) select(callable[0].name, null);
  state.phase = "idle";
}

main().catch((err) => {
  state.phase = "failed";
  state.error = String(err && err.stack ? err.stack : err);
  setError(String(err && err.message ? err.message : err));
  log("error: " + state.error);
});
