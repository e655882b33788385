// A page on one origin reads a server card served on another, in headless
// Chromium (Debian's, driven by playwright-core): the browser enforces CORS,
// so what the page can read is what the card's headers allow.
//
//   node browser.mjs --page http://127.0.0.1:A/ --card http://127.0.0.1:B/mcp/server-card \
//     --legacy http://127.0.0.1:B/.well-known/mcp/server-card.json --closed http://127.0.0.1:B/mcp
//
// Prints one JSON object with what the page saw; the Go test
// (TestBrowserReadsTheCardCrossOrigin) checks it. Exits 1 when the browser
// could not be driven at all.

import { parseArgs } from "node:util";
import { chromium } from "playwright-core";

const { values: opt } = parseArgs({
  options: {
    page: { type: "string" },
    card: { type: "string" },
    legacy: { type: "string" },
    closed: { type: "string" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
  },
});
for (const k of ["page", "card", "legacy", "closed"]) {
  if (!opt[k]) throw new Error(`--${k} URL is required`);
}

const WAIT_MS = 30000; // every wait is bounded by this

const browser = await chromium.launch({
  executablePath: opt.chromium,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  timeout: WAIT_MS,
});
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(WAIT_MS);
  await page.goto(opt.page, { timeout: WAIT_MS });
  const seen = await page.evaluate(
    async ({ card, legacy, closed }) => {
      const out = {};
      // 1. The card, asked for by its media type as the extension says.
      const first = await fetch(card, { headers: { Accept: "application/mcp-server-card+json" } });
      const doc = await first.json();
      out.first = {
        status: first.status,
        contentType: first.headers.get("content-type"),
        etag: first.headers.get("etag"), // readable only if exposed
        cacheControl: first.headers.get("cache-control"),
        name: doc.name,
        remote: doc.remotes && doc.remotes[0] && doc.remotes[0].url,
      };
      // 2. Revalidation: If-None-Match is not CORS-safelisted, so the
      // browser sends a preflight first; the answer is a 304 the page sees.
      const again = await fetch(card, { headers: { "If-None-Match": out.first.etag }, cache: "no-store" });
      out.again = { status: again.status, etag: again.headers.get("etag") };
      // 3. The legacy enumerating document.
      const l = await fetch(legacy);
      const ldoc = await l.json();
      out.legacy = { status: l.status, tools: (ldoc.tools || []).map((t) => t.name) };
      // 4. A control: a path without CORS headers is unreadable, so the
      // card was readable because of its headers.
      try {
        await fetch(closed);
        out.closed = "read";
      } catch (e) {
        out.closed = "blocked";
      }
      return out;
    },
    { card: opt.card, legacy: opt.legacy, closed: opt.closed },
  );
  console.log(JSON.stringify(seen));
} finally {
  await browser.close();
}
