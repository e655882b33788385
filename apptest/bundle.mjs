// Builds the host page's script of `mcpgen preview`: cmd/mcpgen/apphost/host.js
// bundled with the packages it imports (the ext-apps AppBridge, the
// TypeScript client SDK) from this folder's node_modules, into
// cmd/mcpgen/apphost/host.bundle.js, which the mcpgen binary embeds, and
// cmd/mcpgen/apphost/NOTICES.txt, the license of every package in it.
// Both are committed, so that building mcpgen needs no npm.
//
//   node bundle.mjs           # write them (after npm ci here)
//   node bundle.mjs --check   # fail when the committed ones differ (run.sh, in CI)
//
// The bundle starts with a line naming host.js's SHA-256, which a Go test
// of cmd/mcpgen checks, so that editing host.js without bundling fails
// where npm is not at hand too.

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import * as esbuild from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const dir = path.join(root, "cmd", "mcpgen", "apphost");
const source = path.join(dir, "host.js");
const outputs = { bundle: path.join(dir, "host.bundle.js"), notices: path.join(dir, "NOTICES.txt") };
const { values: opt } = parseArgs({ options: { check: { type: "boolean", default: false } } });

// packageDir is the package folder of a bundled file (node_modules/NAME or
// node_modules/@SCOPE/NAME).
function packageDir(file) {
  const parts = file.split("/");
  const i = parts.lastIndexOf("node_modules");
  if (i < 0) return null;
  const n = parts[i + 1].startsWith("@") ? 2 : 1;
  return parts.slice(0, i + 1 + n).join("/");
}

async function notices(metafile) {
  const dirs = new Set();
  for (const out of Object.values(metafile.outputs)) {
    for (const [file, use] of Object.entries(out.inputs)) {
      const d = packageDir(file);
      if (d && use.bytesInOutput > 0) dirs.add(d);
    }
  }
  const sections = [];
  for (const d of [...dirs].sort()) {
    const pkg = JSON.parse(await readFile(path.join(root, d, "package.json"), "utf8"));
    const names = (await readdir(path.join(root, d))).filter((f) => /^(licen[cs]e|copying|notice)/i.test(f)).sort();
    let text = "";
    for (const f of names) text += (await readFile(path.join(root, d, f), "utf8")).trim() + "\n\n";
    if (!text) text = `(the package holds no license file; its package.json says ${pkg.license})\n\n`;
    sections.push(`${pkg.name} ${pkg.version} (${pkg.license})\n${"-".repeat(60)}\n${text}`);
  }
  return (
    "The script of the host page of mcpgen preview (host.bundle.js) bundles these\n" +
    "packages from npm, as apptest/package-lock.json pins them.\n\n" +
    sections.join("")
  );
}

async function build() {
  const src = await readFile(source);
  const sha = createHash("sha256").update(src).digest("hex");
  const lock = JSON.parse(await readFile(path.join(here, "package-lock.json"), "utf8"));
  const version = (name) => lock.packages[`node_modules/${name}`]?.version ?? "?";
  const banner =
    `// host.bundle.js: built from host.js (sha256 ${sha}) by apptest/bundle.mjs ` +
    `with esbuild ${version("esbuild")}, @modelcontextprotocol/client ${version("@modelcontextprotocol/client")} ` +
    `and @modelcontextprotocol/ext-apps ${version("@modelcontextprotocol/ext-apps")}. Do not edit: edit host.js, then run node apptest/bundle.mjs.`;
  const built = await esbuild.build({
    entryPoints: [source],
    absWorkingDir: root,
    nodePaths: [path.join(here, "node_modules")],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "eof",
    banner: { js: banner },
    metafile: true,
    write: false,
    logLevel: "warning",
  });
  return { bundle: built.outputFiles[0].text, notices: await notices(built.metafile) };
}

async function main() {
  if (!existsSync(path.join(here, "node_modules", "esbuild"))) {
    throw new Error(`no node_modules in ${here}: run npm ci there first`);
  }
  const want = await build();
  if (!opt.check) {
    for (const [k, file] of Object.entries(outputs)) await writeFile(file, want[k]);
    console.log(`wrote ${path.relative(root, outputs.bundle)} (${want.bundle.length} bytes) and ${path.relative(root, outputs.notices)}`);
    return;
  }
  let stale = 0;
  for (const [k, file] of Object.entries(outputs)) {
    const have = existsSync(file) ? await readFile(file, "utf8") : null;
    if (have !== want[k]) {
      stale++;
      console.log(`FAIL ${path.relative(root, file)} is not what bundle.mjs builds from host.js and package-lock.json: run node apptest/bundle.mjs (after npm ci in apptest) and commit it`);
    }
  }
  if (stale) process.exit(1);
  console.log("ok   the preview's host.bundle.js and NOTICES.txt are built from host.js");
}

main().catch((err) => {
  console.error(`bundle.mjs: ${err && err.stack ? err.stack : err}`);
  process.exit(1);
});
