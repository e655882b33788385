// Reads every skill a server publishes with a real TypeScript client SDK, the
// way a host loads skills (SEP-2640): it pages through skills/list, checks
// that skills/get returns the same entry, reads every file of every entry with
// resources/read and verifies its size and sha256 digest, and walks the skill
// folders with resources/directory/read when the server declares
// directoryRead. Prints one line per check and exits 0 only when all passed.
//
//   node skills.mjs --sdk v1|v2 --transport http --url URL [--era legacy|modern]
//   node skills.mjs --sdk v1|v2 --transport stdio --command BIN [--era ...] -- [ARG]...
//
// --sdk v1 is @modelcontextprotocol/sdk (2025 era); --sdk v2 is
// @modelcontextprotocol/client, whose --era modern pins 2026-07-28.
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';

const { values: opt, positionals } = parseArgs({
    allowPositionals: true,
    options: {
        sdk: { type: 'string' },
        transport: { type: 'string', default: 'http' },
        url: { type: 'string' },
        command: { type: 'string' },
        era: { type: 'string', default: 'legacy' },
        timeout: { type: 'string', default: '20000' }
    }
});
const timeout = Number(opt.timeout);
const EXTENSION = 'io.modelcontextprotocol/skills';

async function connect() {
    let client, transport, anyResult;
    if (opt.sdk === 'v1') {
        const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
        const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
        const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
        const { ResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
        anyResult = ResultSchema;
        client = new Client({ name: 'mcpgen-skills', version: '1' }, { capabilities: {} });
        transport =
            opt.transport === 'stdio'
                ? new StdioClientTransport({ command: opt.command, args: positionals, stderr: 'inherit' })
                : new StreamableHTTPClientTransport(new URL(opt.url));
    } else {
        const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
        const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
        // A Standard Schema that accepts any result: the SDK knows no skills types.
        anyResult = { '~standard': { version: 1, vendor: 'mcpgen', validate: value => ({ value }) } };
        const options = opt.era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
        client = new Client({ name: 'mcpgen-skills', version: '1' }, { capabilities: {}, ...options });
        transport =
            opt.transport === 'stdio'
                ? new StdioClientTransport({ command: opt.command, args: positionals, stderr: 'inherit' })
                : new StreamableHTTPClientTransport(new URL(opt.url));
    }
    // Both SDKs tell the transport the negotiated version through this hook.
    let negotiated = '';
    const setVersion = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = v => {
        negotiated = v;
        setVersion?.(v);
    };
    await client.connect(transport, { timeout });
    client.negotiated = () => negotiated || client.getNegotiatedProtocolVersion?.() || '';
    const request = (method, params) => client.request({ method, params }, anyResult, { timeout });
    return { client, request };
}

const results = [];
function check(name, ok, detail = '') {
    results.push({ name, ok, detail });
}

function bytesOf(content) {
    if (typeof content.text === 'string') return Buffer.from(content.text, 'utf8');
    if (typeof content.blob === 'string') return Buffer.from(content.blob, 'base64');
    return undefined;
}

async function main() {
    const { client, request } = await connect();
    const protocol = client.negotiated();
    const caps = client.getServerCapabilities() ?? {};
    const settings = caps.extensions?.[EXTENSION];
    check('declared', settings !== undefined && caps.resources !== undefined,
        `extensions ${JSON.stringify(caps.extensions)}, resources ${JSON.stringify(caps.resources)}`);

    // Every page of skills/list.
    const entries = [];
    let cursor;
    const modern = protocol === '2026-07-28';
    for (let page = 0; page < 100; page++) {
        const res = await request('skills/list', cursor ? { cursor } : {});
        if (page === 0 && modern) {
            check('list cache hints', Number.isInteger(res.ttlMs) && ['public', 'private'].includes(res.cacheScope),
                `ttlMs ${res.ttlMs}, cacheScope ${res.cacheScope}`);
        }
        entries.push(...res.skills);
        cursor = res.nextCursor;
        if (!cursor) break;
    }
    check('listed', entries.length > 0, `${entries.length} skills`);

    let files = 0;
    for (const entry of entries) {
        const got = await request('skills/get', { uri: entry.uri });
        check(`get ${entry.uri}`, JSON.stringify(got.skill) === JSON.stringify(entry),
            JSON.stringify(got.skill) === JSON.stringify(entry) ? '' : `skills/get: ${JSON.stringify(got.skill)}`);
        if (!Array.isArray(entry.resources)) continue; // "dynamic": nothing to verify against
        for (const file of entry.resources) {
            const read = await request('resources/read', { uri: file.uri });
            const content = read.contents?.find(c => c.uri === file.uri) ?? read.contents?.[0];
            const bytes = content && bytesOf(content);
            if (!bytes) {
                check(`read ${file.uri}`, false, `no text or blob: ${JSON.stringify(read)}`);
                continue;
            }
            const digest = 'sha256:' + createHash('sha256').update(bytes).digest('hex');
            const ok = bytes.length === file.size && digest === file.digest;
            check(`read ${file.uri}`, ok, ok ? '' : `${bytes.length} bytes, ${digest}; the entry says ${file.size} bytes, ${file.digest}`);
            if (file.uri === entry.uri) {
                check(`mimeType ${file.uri}`, content.mimeType === 'text/markdown', content.mimeType);
            }
            files++;
        }
    }
    check('files verified', files > 0, `${files} files`);

    const missing = await request('skills/get', { uri: 'skill://no-such-skill/SKILL.md' }).then(
        () => 'a result',
        err => err.code
    );
    check('unknown skill', missing === -32602, `got ${missing}`);

    if (settings?.directoryRead === true) {
        // Every file of a static entry is reachable from its skill's root.
        for (const entry of entries.filter(e => Array.isArray(e.resources))) {
            const root = entry.uri.slice(0, -'/SKILL.md'.length);
            const found = new Set();
            const queue = [root];
            while (queue.length > 0) {
                const dir = queue.shift();
                const res = await request('resources/directory/read', { uri: dir });
                for (const child of res.resources) {
                    if (child.mimeType === 'inode/directory') queue.push(child.uri);
                    else found.add(child.uri);
                }
            }
            const want = entry.resources.map(r => r.uri).sort();
            const ok = JSON.stringify([...found].sort()) === JSON.stringify(want);
            check(`directories of ${root}`, ok, ok ? '' : `found ${[...found].sort().join(' ')}`);
        }
    }
    await client.close();
    return protocol;
}

let protocol = '';
try {
    protocol = await main();
} catch (err) {
    check('run', false, String(err?.stack ?? err));
}
const failed = results.filter(r => !r.ok);
for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name}${r.detail ? ': ' + r.detail : ''}`);
console.log(`skills (${opt.sdk}, ${opt.transport}, ${protocol || 'no protocol'}): ${results.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length === 0 && results.length > 0 ? 0 : 1);
