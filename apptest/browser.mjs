// The MCP Apps browser test: the scaffolded notes server (mcpgen init --app)
// at --mcp, shown through `mcpgen preview` at --host (its host page: the
// ext-apps AppBridge and the TypeScript client SDK, embedded in mcpgen) in
// headless Chromium, driven by playwright-core.
//
// First as a user would: the preview lists the tools with pages, refuses
// arguments that are not JSON or break show_notes's inputSchema (without
// calling it), and calls show_notes with the arguments typed. Then, for a
// 2025-11-25 session and for 2026-07-28, the host calls show_notes, reads
// ui://notes/view.html and renders it in a sandboxed iframe; the test reads
// what the page shows from its DOM, clicks a note, and checks that the page
// called open_note (an app-only tool) through the host and shows the note.
// A screenshot of each run goes to --out.
//
//   node browser.mjs --mcp http://127.0.0.1:PORT/mcp --host http://127.0.0.1:PORT2/ --out artifacts
//
// Prints one line per check and "N passed, N failed"; exits 1 on a failure.

import { mkdtemp, mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: opt } = parseArgs({
  options: {
    mcp: { type: "string" },
    host: { type: "string" },
    out: { type: "string", default: path.join(here, "artifacts") },
    chromium: { type: "string", default: "/usr/bin/chromium" },
  },
});
if (!opt.mcp || !opt.host) throw new Error("--mcp URL and --host URL are required");

const WAIT_MS = 30000; // every wait of the test is bounded by this
const EXTENSION = "io.modelcontextprotocol/ui";
// A note whose text looks like markup: the page must show it as text.
const NOTE = { title: "groceries", body: "milk, eggs <b>& bread</b>" };

let passed = 0;
let failed = 0;
function check(name, ok, detail = "") {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok || !detail ? "" : `: ${detail}`}`);
}

// addNote saves NOTE through a client of our own, as a user would have.
async function addNote() {
  const client = new Client({ name: "apptest-setup", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(opt.mcp)));
  await client.callTool({ name: "add_note", arguments: NOTE });
  await client.close();
}

// settled waits until the host is done with what it was doing.
async function settled(page) {
  await page.waitForFunction(() => window.hostState && !["starting", "running"].includes(window.hostState.phase), null, {
    timeout: WAIT_MS,
  });
  return page.evaluate(() => window.hostState);
}

// callWith types args into the form and presses the call button.
async function callWith(page, args) {
  await page.fill("#args", args);
  await page.evaluate(() => {
    window.hostState.phase = "running";
  });
  await page.click("#run");
  return settled(page);
}

function watchErrors(page) {
  const errors = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(String(e)));
  return errors;
}

// asUser: the preview as a user drives it, in its default era.
async function asUser(context) {
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(opt.host, { timeout: WAIT_MS });
  let state = await settled(page);
  check("preview: the host page connected and waits for a call", state.phase === "idle", state.error);
  if (state.phase !== "idle") return page.close();
  check("preview: it offers show_notes, and names open_note as the page's own",
    state.appTools.join(",") === "show_notes" && state.pageOnlyTools.join(",") === "open_note",
    `${state.appTools} / ${state.pageOnlyTools}`);
  const server = await page.textContent("#server");
  check("preview: it names the server it previews", server.includes("notes 0.1.0") && server.includes(opt.mcp), server);

  state = await callWith(page, '{"contains": 5}');
  check("preview: arguments against the inputSchema are refused where they are wrong, before any call",
    state.phase === "invalid" && state.problems.join() === "/contains: expected string, but got number" && state.calls === 0,
    `${state.phase} ${JSON.stringify(state.problems)} calls ${state.calls}`);
  const shown = await page.textContent("#problems");
  check("preview: the page shows the problem", shown.includes("/contains: expected string"), shown);
  state = await callWith(page, '{"contains": "milk"');
  check("preview: text that is not JSON is refused", state.phase === "invalid" && /^not JSON: /.test(state.problems[0] ?? "") && state.calls === 0,
    JSON.stringify(state.problems));

  state = await callWith(page, '{"contains": "milk"}');
  check("preview: show_notes called with the arguments typed", state.phase === "ready", state.error);
  if (state.phase === "ready") {
    const app = page.frameLocator("#app");
    await app.locator("#notes li").first().waitFor({ timeout: WAIT_MS });
    const titles = await app.locator("#notes li strong").allTextContents();
    check("preview: the page shows what show_notes returned for them", titles.join(",") === "groceries", titles.join(","));
    const query = new URL(page.url()).searchParams;
    check("preview: the address bar repeats the call", query.get("tool") === "show_notes" && query.get("args") === '{"contains":"milk"}',
      page.url());
  }
  check("preview: no errors in the host or the page", errors.length === 0, errors.join(" | "));
  await page.close();
}

// runEra: the call a host makes when the model calls show_notes.
async function runEra(context, era) {
  const page = await context.newPage();
  const consoleErrors = watchErrors(page);
  const url = new URL(opt.host);
  url.search = new URLSearchParams({ tool: "show_notes", era }).toString();
  await page.goto(url.toString(), { timeout: WAIT_MS });
  const state = await settled(page);
  check(`${era}: the host called show_notes and handed the page its result`, state.phase === "ready", state.error);
  if (state.phase !== "ready") {
    await page.close();
    return;
  }
  check(`${era}: the session is the era asked for`, (state.protocolVersion === "2026-07-28") === (era === "modern"), state.protocolVersion);
  check(`${era}: the server declares ${EXTENSION}`, state.serverExtensions && EXTENSION in state.serverExtensions,
    JSON.stringify(state.serverExtensions));
  check(`${era}: resources/read sent the page's _meta.ui`, state.pageMeta?.ui?.prefersBorder === true, JSON.stringify(state.pageMeta));
  check(`${era}: open_note (visibility ["app"]) is kept from the model, show_notes is not`,
    state.modelTools.includes("show_notes") && !state.modelTools.includes("open_note"), JSON.stringify(state.modelTools));

  const app = page.frameLocator("#app");
  const items = app.locator("#notes li");
  await items.nth(1).waitFor({ timeout: WAIT_MS });
  const titles = await app.locator("#notes li strong").allTextContents();
  check(`${era}: the page lists the notes of the tool result`, titles.join(",") === "groceries,welcome", titles.join(","));
  const status = await app.locator("#status").textContent();
  check(`${era}: the page's status line counts them`, status === "2 notes", status);
  const preview = await app.locator("#notes li .preview").first().textContent();
  const markup = await app.locator("#notes b").count();
  check(`${era}: a note's markup is shown as text, not rendered`, preview === NOTE.body && markup === 0, `${preview} (${markup} <b>)`);
  const sandbox = await page.getAttribute("#app", "sandbox");
  check(`${era}: the page runs in a sandbox with scripts only`, sandbox === "allow-scripts", sandbox);

  await app.locator("#notes button", { hasText: NOTE.title }).click({ timeout: WAIT_MS });
  await app.locator("#note:not([hidden])").waitFor({ timeout: WAIT_MS });
  const body = await app.locator("#note-body").textContent();
  check(`${era}: the page called open_note through the host and shows the note`, body === NOTE.body, body);
  const after = await page.evaluate(() => window.hostState);
  check(`${era}: the host forwarded the page's call and refused none`,
    after.log.some((l) => l.startsWith("page calls open_note")) && after.refused.length === 0, JSON.stringify(after.refused));
  check(`${era}: no errors in the host or the page`, consoleErrors.length === 0, consoleErrors.join(" | "));

  await mkdir(opt.out, { recursive: true });
  const shot = path.join(opt.out, `notes-view-${era}.png`);
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`     screenshot: ${shot}`);
  await page.close();
}

async function main() {
  await addNote();
  // A fresh profile; the machine has no network beyond loopback, so
  // everything that would reach out is switched off.
  const profile = await mkdtemp(path.join(tmpdir(), "apptest-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: opt.chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
    viewport: { width: 1000, height: 760 },
    timeout: WAIT_MS,
  });
  try {
    await asUser(context);
    for (const era of ["session", "modern"]) {
      await runEra(context, era);
    }
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}

main()
  .catch((err) => {
    check("the browser test ran to the end", false, err && err.stack ? err.stack : String(err));
  })
  .finally(() => {
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed === 0 ? 0 : 1);
  });
