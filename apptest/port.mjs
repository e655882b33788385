// The official MCP Apps example @modelcontextprotocol/server-basic-vanillajs
// next to its mcpgen port (examples/apps-basic, generated from the example's
// own tools/list and resources/list). Both run over stdio; this script
// speaks JSON-RPC to each directly (no SDK in between, so nothing is parsed
// away) and checks that:
//   - the port's schemas are what the installed example lists today;
//   - tools/list and resources/list of the two servers are equal;
//   - resources/read of the page answers the same text/html;profile=mcp-app;
//   - get-time answers with the same shape.
//
//   node port.mjs --port BIN          # compare
//   node port.mjs --write-schemas DIR # save the example's lists as the port's schemas
//
// Prints one line per check and "N passed, N failed"; exits 1 on a failure.

import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual, parseArgs } from "node:util";

const here = path.dirname(fileURLToPath(import.meta.url));
const exampleDir = path.join(here, "node_modules", "@modelcontextprotocol", "server-basic-vanillajs");
const examplePage = path.join(exampleDir, "dist", "mcp-app.html");
const PAGE = "ui://get-time/mcp-app.html";
const WAIT_MS = 20000; // each answer is awaited this long at most

const { values: opt } = parseArgs({
  options: {
    port: { type: "string" },
    "write-schemas": { type: "string" },
    schemas: { type: "string", default: path.join(here, "..", "examples", "apps-basic", "schemas") },
  },
});

// stdioServer starts a server and returns request(method, params), which
// resolves with the raw JSON-RPC response, and close().
function stdioServer(command, args) {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
  const waiting = new Map();
  let buffered = "";
  let nextId = 1;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (!line) continue;
      const msg = JSON.parse(line);
      const w = waiting.get(msg.id);
      if (w && msg.method === undefined) {
        waiting.delete(msg.id);
        clearTimeout(w.timer);
        w.resolve(msg);
      }
    }
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const send = (msg) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");
  return {
    request(method, params = {}) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`${command}: no answer to ${method} within ${WAIT_MS}ms`));
        }, WAIT_MS);
        waiting.set(id, { resolve, reject, timer });
        send({ id, method, params });
      });
    },
    notify: (method, params = {}) => send({ method, params }),
    async close() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), WAIT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

// session initializes a server as a host with MCP Apps would and returns
// what the checks compare.
async function session(name, command, args) {
  const s = stdioServer(command, args);
  try {
    const init = await s.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } },
      clientInfo: { name: "apptest-port", version: "1.0.0" },
    });
    if (init.error) throw new Error(`${name}: initialize: ${JSON.stringify(init.error)}`);
    s.notify("notifications/initialized");
    const tools = await s.request("tools/list");
    const resources = await s.request("resources/list");
    const page = await s.request("resources/read", { uri: PAGE });
    const time = await s.request("tools/call", { name: "get-time", arguments: {} });
    return { init: init.result, tools: tools.result, resources: resources.result, page: page.result, time: time.result };
  } finally {
    await s.close();
  }
}

const example = () => session("example", process.execPath, [path.join(exampleDir, "dist", "index.js"), "--stdio"]);

async function writeSchemas(dir) {
  const e = await example();
  await writeFile(path.join(dir, "tools.json"), JSON.stringify(e.tools, null, 2) + "\n");
  await writeFile(path.join(dir, "resources.json"), JSON.stringify(e.resources, null, 2) + "\n");
  console.log(`wrote tools.json and resources.json of ${exampleDir} to ${dir}`);
}

let passed = 0;
let failed = 0;
function check(name, ok, detail = "") {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok || !detail ? "" : `: ${detail}`}`);
}

async function compare() {
  const [e, p] = await Promise.all([example(), session("port", opt.port, ["-stdio", "-page", examplePage])]);
  const committed = {
    tools: JSON.parse(await readFile(path.join(opt.schemas, "tools.json"), "utf8")),
    resources: JSON.parse(await readFile(path.join(opt.schemas, "resources.json"), "utf8")),
  };
  check("the port's schemas are the example's tools/list and resources/list", isDeepStrictEqual(committed.tools, e.tools) &&
    isDeepStrictEqual(committed.resources, e.resources), "regenerate them with --write-schemas");
  check("tools/list agrees", isDeepStrictEqual(p.tools, e.tools), `\n  port    ${JSON.stringify(p.tools)}\n  example ${JSON.stringify(e.tools)}`);
  check("resources/list agrees", isDeepStrictEqual(p.resources, e.resources),
    `\n  port    ${JSON.stringify(p.resources)}\n  example ${JSON.stringify(e.resources)}`);
  check("resources/read of the page agrees", isDeepStrictEqual(p.page, e.page),
    `\n  port    ${JSON.stringify(p.page).slice(0, 300)}\n  example ${JSON.stringify(e.page).slice(0, 300)}`);
  const shape = (r) => ({
    text: r.content.map((b) => b.type),
    keys: Object.keys(r.structuredContent ?? {}),
    // The text differs by design: the example writes the bare time, mcpgen
    // the output's JSON (as the specification recommends); both hold it.
    iso: !Number.isNaN(Date.parse(r.structuredContent?.time)) && r.content[0]?.text.includes(r.structuredContent?.time),
  });
  check("get-time answers alike", isDeepStrictEqual(shape(p.time), shape(e.time)) && shape(p.time).iso,
    `port ${JSON.stringify(p.time)}, example ${JSON.stringify(e.time)}`);
  check("the port declares io.modelcontextprotocol/ui", Boolean(p.init.capabilities?.extensions?.["io.modelcontextprotocol/ui"]),
    JSON.stringify(p.init.capabilities));
}

const job = opt["write-schemas"] ? writeSchemas(opt["write-schemas"]) : compare();
job
  .catch((err) => check("the comparison ran to the end", false, err && err.stack ? err.stack : String(err)))
  .finally(() => {
    if (!opt["write-schemas"]) console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed === 0 ? 0 : 1);
  });
