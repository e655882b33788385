// The MCP Apps browser test: the scaffolded notes server (mcpgen init --app)
// at --mcp, the host page of host/ (the ext-apps AppBridge and the
// TypeScript client SDK, bundled with esbuild) in headless Chromium, driven
// by playwright-core. For a 2025-11-25 session and for 2026-07-28, the host
// calls show_notes, reads ui://notes/view.html and renders it in a sandboxed
// iframe; the test reads what the page shows from its DOM, clicks a note, and
// checks that the page called open_note (an app-only tool) through the host
// and shows the note. A screenshot of each run goes to --out.
//
//   node browser.mjs --mcp http://127.0.0.1:PORT/mcp --out artifacts
//
// Prints one line per check and "N passed, N failed"; exits 1 on a failure.

import { mkdtemp, mkdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import * as esbuild from "esbuild";
import { chromium } from "playwright-core";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { serveHost } from "./serve.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: opt } = parseArgs({
  options: {
    mcp: { type: "string" },
    out: { type: "string", default: path.join(here, "artifacts") },
    chromium: { type: "string", default: "/usr/bin/chromium" },
  },
});
if (!opt.mcp) throw new Error("--mcp URL is required");

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

async function bundleHost() {
  const built = await esbuild.build({
    entryPoints: [path.join(here, "host", "host.js")],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "warning",
  });
  return built.outputFiles[0].contents;
}

async function runEra(context, hostURL, era) {
  const page = await context.newPage();
  const consoleErrors = [];
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  const url = `${hostURL}?tool=show_notes${era === "modern" ? "&era=modern" : ""}`;
  await page.goto(url, { timeout: WAIT_MS });
  await page.waitForFunction(() => window.hostState && window.hostState.phase !== "starting", null, { timeout: WAIT_MS });
  const state = await page.evaluate(() => window.hostState);
  check(`${era}: the host called show_notes and handed the page its result`, state.phase === "ready", state.error);
  if (state.phase !== "ready") {
    await page.close();
    return;
  }
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
  const host = await serveHost({
    upstream: opt.mcp,
    files: {
      "/index.html": { type: "text/html; charset=utf-8", body: await readFile(path.join(here, "host", "index.html")) },
      "/host.bundle.js": { type: "text/javascript; charset=utf-8", body: await bundleHost() },
    },
  });
  // A fresh profile; the machine has no network beyond loopback, so
  // everything that would reach out is switched off.
  const profile = await mkdtemp(path.join(tmpdir(), "apptest-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: opt.chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
    viewport: { width: 640, height: 560 },
    timeout: WAIT_MS,
  });
  try {
    for (const era of ["session", "modern"]) {
      await runEra(context, host.url, era);
    }
  } finally {
    await context.close();
    await host.close();
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
