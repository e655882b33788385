// Prints the conformance table (scenario, 2025-11-25, 2026-07-28) as Markdown
// from the results that scripts/conformance.sh saved, and checks that the
// expected-failures baseline lists only what it may: resource, prompt and
// completion scenarios and the few that need them.
//
// Usage: node table.mjs RESULTS_DIR BASELINE_FILE
// Exit status 1 when the baseline names a scenario it must not.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const [resultsDir, baselineFile] = process.argv.slice(2);
if (!resultsDir || !baselineFile) {
  console.error('usage: node table.mjs RESULTS_DIR BASELINE_FILE');
  process.exit(2);
}

// The baseline may only hold these: they need resources, prompts or
// completions, which a later issue brings.
const allowedInBaseline = (s) =>
  /^(resources-|prompts-|completion-)/.test(s) ||
  ['caching', 'sep-2164-resource-not-found', 'input-required-result-non-tool-request'].includes(s);

// The baseline is a small YAML list ("server:" then "  - name  # reason");
// reading it by line keeps this script free of dependencies.
function readBaseline(file) {
  const entries = [];
  let inServer = false;
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.replace(/\s+#.*$/, '').replace(/^#.*$/, '');
    if (/^\S/.test(line)) inServer = line.trim() === 'server:';
    const m = inServer && line.match(/^\s+-\s+(\S+)\s*$/);
    if (m) entries.push(m[1].replace(/^['"]|['"]$/g, ''));
  }
  return entries;
}

// `conformance list --server --requirements REV` output: scored server
// scenarios, then the ones run but never scored.
function readList(file) {
  const scored = [];
  const unscored = [];
  let section = '';
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('Server scenarios')) section = 'scored';
    else if (line.startsWith('Client scenarios')) section = '';
    else if (line.startsWith('Run and reported')) section = 'unscored';
    const s = line.match(/^\s+-\s+(\S+)\s*$/);
    if (s && section === 'scored') scored.push(s[1]);
    const u = line.match(/^\s+-\s+(\S+)\s+\[server\]\s*$/);
    if (u && section === 'unscored') unscored.push(u[1]);
  }
  return { scored, unscored };
}

// One run's results: scenario -> its checks (results/RUN/server-NAME-TIME/checks.json).
function readRun(run) {
  const out = new Map();
  const base = join(resultsDir, run);
  if (!existsSync(base)) return out;
  for (const d of readdirSync(base)) {
    const m = d.match(/^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/);
    const file = join(base, d, 'checks.json');
    if (m && existsSync(file)) out.set(m[1], JSON.parse(readFileSync(file, 'utf8')));
  }
  return out;
}

// verdict of one scenario's checks: pass, WARN or FAIL, with the failing ids.
function verdict(checks) {
  const bad = (st) => [...new Set(checks.filter((c) => c.status === st).map((c) => c.id))];
  const failed = bad('FAILURE');
  if (failed.length) return { v: 'FAIL', ids: failed };
  const warned = bad('WARNING');
  if (warned.length) return { v: 'WARN', ids: warned };
  // A scenario that only skipped (nothing to test here) has no SUCCESS.
  if (!checks.some((c) => c.status === 'SUCCESS')) return { v: 'skipped', ids: [] };
  return { v: 'pass', ids: [] };
}

const baseline = readBaseline(baselineFile);
const lists = {
  '2025-11-25': readList(join(resultsDir, '2025-11-25.list')),
  '2026-07-28': readList(join(resultsDir, '2026-07-28.list'))
};
const runs = {
  '2025-11-25': readRun('2025-11-25'),
  '2026-07-28': readRun('2026-07-28'),
  '0.1.16': readRun('0.1.16')
};

function cell(rev, scenario) {
  const { scored, unscored } = lists[rev];
  const isScored = scored.includes(scenario);
  if (!isScored && !unscored.includes(scenario)) return '—';
  const checks = runs[rev].get(scenario);
  if (!checks) return 'not run';
  let { v, ids } = verdict(checks);
  let text = v;
  // The released 0.1.16 suite runs the 2025-11-25 scenarios too: report
  // where it disagrees.
  if (rev === '2025-11-25' && v === 'pass' && runs['0.1.16'].has(scenario)) {
    const old = verdict(runs['0.1.16'].get(scenario));
    if (old.v === 'FAIL' || old.v === 'WARN') {
      ({ v, ids } = old);
      text = `${old.v} (0.1.16)`;
    }
  }
  if (v === 'FAIL' || v === 'WARN') {
    if (isScored && baseline.includes(scenario)) text = 'expected fail';
    else if (!isScored) text += ` (${ids.length} check${ids.length === 1 ? '' : 's'})`;
    else text += ids.length ? ` (${ids.join(', ')})` : '';
  }
  if (!isScored) text += ', not scored';
  return text;
}

const order = [];
for (const rev of ['2025-11-25', '2026-07-28']) {
  for (const s of [...lists[rev].scored, ...lists[rev].unscored]) if (!order.includes(s)) order.push(s);
}

const rows = order.map((s) => [s, cell('2025-11-25', s), cell('2026-07-28', s)]);
console.log('| scenario | 2025-11-25 | 2026-07-28 |');
console.log('|---|---|---|');
for (const r of rows) console.log(`| ${r.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`);

const summary = (col, rev) => {
  const scored = rows.filter((r) => lists[rev].scored.includes(r[0])).map((r) => r[col]);
  const n = (pred) => scored.filter(pred).length;
  return (
    `${rev}: ${n((c) => c === 'pass')} of ${scored.length} required scenarios pass, ` +
    `${n((c) => c === 'expected fail')} expected failures (baseline), ` +
    `${n((c) => /^(FAIL|WARN)/.test(c))} unexpected`
  );
};
console.log('');
console.log(`${summary(1, '2025-11-25')}; ${summary(2, '2026-07-28')}.`);
console.log('"not scored": run and reported by the suite but outside the revision\'s requirement set; "—": not part of that revision.');
if (rows.some((r) => r[0].startsWith('tasks-'))) {
  console.log('tasks-*: the tasks extension (io.modelcontextprotocol/tasks, SEP-2663); the suite runs it but does not score it, and skips tasks-status-notifications itself.');
}

const forbidden = baseline.filter((s) => !allowedInBaseline(s));
if (forbidden.length) {
  console.error(`expected-failures.yml may list only resource, prompt and completion scenarios (and caching, sep-2164-resource-not-found, input-required-result-non-tool-request); it lists: ${forbidden.join(', ')}`);
  process.exit(1);
}
