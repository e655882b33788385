// Prints the interop table from the JSON lines the clients wrote (one line
// per client run: client, transport, config, protocol, get, results{check:
// {ok, na, detail}}), then the details of every failed check. Exits 1 when a run
// failed a check or fewer runs than --expect reported (a client that crashed
// before writing its line is a failure too).
//
//   node report.mjs RESULTS.jsonl --expect N
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checks } from './scenario.mjs';

const { values: opt, positionals } = parseArgs({
    allowPositionals: true,
    options: { expect: { type: 'string', default: '0' } }
});
const rows = readFileSync(positionals[0], 'utf8')
    .split('\n')
    .filter(l => l.trim())
    .map(l => JSON.parse(l));

// cell is a check's table cell: ok, FAIL, or n/a for a check the run cannot
// make (the detail says why; it fails no run).
function cell(res) {
    if (!res?.ok) return 'FAIL';
    return res.na ? 'n/a' : 'ok';
}

const cols = ['client', 'transport', 'config', 'protocol', 'GET stream', ...checks.order.map(n => (n === 'plain' ? 'plain call' : n))];
const cells = rows.map(r => [
    r.client,
    r.transport,
    r.config,
    r.protocol || '-',
    r.get,
    ...checks.order.map(n => cell(r.results?.[n]))
]);
const width = cols.map((c, i) => Math.max(c.length, ...cells.map(row => String(row[i]).length)));
const line = row => '| ' + row.map((c, i) => String(c).padEnd(width[i])).join(' | ') + ' |';
console.log(line(cols));
console.log('|' + width.map(w => '-'.repeat(w + 2)).join('|') + '|');
for (const row of cells) console.log(line(row));

// explain shortens a warning an SDK logged without failing a call and, for
// the ones understood, says why it is not a failure.
function explain(warning) {
    if (warning.startsWith('Received a progress notification for an unknown token')) {
        const token = /"progressToken":(\S+?)}/.exec(warning)?.[1] ?? '?';
        return `progress notification for token ${token} handled after its call's result: the SDK dispatches ` +
            'notifications a turn later than responses, so over stdio the last one can lose to the result ' +
            'it preceded on the wire (the progress check above reads the wire order)';
    }
    return warning;
}

let failed = 0;
const details = [];
for (const r of rows) {
    const bad = checks.order.filter(n => !r.results?.[n]?.ok);
    if (bad.length) failed++;
    for (const n of bad) {
        details.push(`${r.client} ${r.transport} ${r.config}: ${n}: ${r.results?.[n]?.detail ?? 'no result'}`);
    }
}
console.log('\nwhat each run saw:');
for (const r of rows) {
    console.log(`  ${r.client} ${r.transport} ${r.config}:`);
    for (const n of checks.order) console.log(`    ${n}: ${cell(r.results?.[n])}: ${r.results?.[n]?.detail ?? 'no result'}`);
    for (const w of r.warnings ?? []) console.log(`    note (the SDK's own log, no call failed): ${explain(w)}`);
}
if (details.length) {
    console.log('\nfailures:');
    for (const d of details) console.log('  ' + d);
}
const expected = Number(opt.expect);
const missing = Math.max(0, expected - rows.length);
if (missing) console.log(`\n${missing} client run(s) reported no result (crashed or timed out before writing it)`);
console.log(`\ninterop: ${rows.length - failed} of ${Math.max(rows.length, expected)} client runs passed every round trip`);
process.exit(failed || missing ? 1 : 0);
