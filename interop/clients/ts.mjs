// Drives an MCP server with one of the official TypeScript client SDKs through
// the round trips interop checks (scenario.mjs): a form elicitation (accepted
// with content), a sampling request, progress notifications, a plain tool call,
// and the first three at once. Prints one JSON line (see report.mjs) and exits
// 0 only when every check passed.
//
//   node ts.mjs --sdk v1|v2 --transport http --url URL [--era legacy|modern|auto] [--no-get]
//   node ts.mjs --sdk v1|v2 --transport stdio --command BIN [--era ...] -- [ARG]...
//
// --sdk v1 is @modelcontextprotocol/sdk (2025 era); --sdk v2 is
// @modelcontextprotocol/client, whose --era modern pins 2026-07-28, --era auto
// probes with server/discover and falls back to initialize, and --era legacy
// is its default (no probe, plain initialize).
// --no-get makes the client POST-only: neither SDK has a switch to skip the
// standalone GET stream, so the client's own fetch answers every GET with 405
// Method Not Allowed, which the spec allows a server to do and which both SDKs
// treat as "no GET stream offered". The server never sees a GET.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checks, fillForm, updateWaiter, withTimeout } from './scenario.mjs';

const { values: opt, positionals } = parseArgs({
    allowPositionals: true,
    options: {
        sdk: { type: 'string' },
        transport: { type: 'string', default: 'http' },
        url: { type: 'string' },
        command: { type: 'string' },
        era: { type: 'string', default: 'legacy' },
        'no-get': { type: 'boolean', default: false },
        timeout: { type: 'string', default: '20000' }
    }
});
const timeoutMs = Number(opt.timeout);
const noGet = opt['no-get'];

const pkg = opt.sdk === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/client';
const pkgVersion = JSON.parse(readFileSync(new URL(`../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;

const row = {
    client: `${opt.sdk === 'v1' ? 'ts-sdk' : 'ts-client'} ${pkgVersion}${opt.sdk !== 'v2' ? '' : opt.era === 'modern' ? ' (pinned 2026-07-28)' : opt.era === 'auto' ? ' (auto)' : ''}`,
    transport: opt.transport,
    config: opt.transport === 'stdio' ? 'default' : noGet ? 'no-GET' : 'default',
    protocol: '',
    get: opt.transport === 'stdio' ? 'n/a' : 'none',
    results: {}
};

// Every GET the client attempts is recorded, and what the server sends on an
// open GET stream is kept (onGet) to tell which stream carried a server
// request; with --no-get every GET is refused here.
const gets = [];
const onGet = [];
async function recordingFetch(url, init) {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method !== 'GET') return fetch(url, init);
    if (noGet) {
        gets.push(405);
        return new Response(null, { status: 405, statusText: 'Method Not Allowed', headers: { Allow: 'POST, DELETE' } });
    }
    const res = await fetch(url, init);
    gets.push(res.status);
    if (!res.ok || !res.body) return res;
    const [mine, theirs] = res.body.tee();
    (async () => {
        const decoder = new TextDecoder();
        try {
            for await (const chunk of mine) onGet.push(decoder.decode(chunk, { stream: true }));
        } catch {
            // the client closed the stream
        }
    })();
    return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
}

async function load() {
    if (opt.sdk === 'v1') {
        const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
        const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
        const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
        const { ElicitRequestSchema, CreateMessageRequestSchema, ResourceUpdatedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
        return {
            Client,
            StreamableHTTPClientTransport,
            StdioClientTransport,
            options: {},
            callTool: (client, params, options) => client.callTool(params, undefined, options),
            onRequest: (client, method, fn) =>
                client.setRequestHandler(method === 'elicitation/create' ? ElicitRequestSchema : CreateMessageRequestSchema, fn),
            onResourceUpdated: (client, fn) => client.setNotificationHandler(ResourceUpdatedNotificationSchema, fn)
        };
    }
    if (opt.sdk === 'v2') {
        const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
        const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
        const options =
            opt.era === 'modern'
                ? { versionNegotiation: { mode: { pin: '2026-07-28' } } }
                : opt.era === 'auto'
                  ? { versionNegotiation: { mode: 'auto' } }
                  : {};
        return {
            Client,
            StreamableHTTPClientTransport,
            StdioClientTransport,
            options,
            callTool: (client, params, options) => client.callTool(params, options),
            onRequest: (client, method, fn) => client.setRequestHandler(method, fn),
            onResourceUpdated: (client, fn) => client.setNotificationHandler('notifications/resources/updated', fn)
        };
    }
    throw new Error(`unknown --sdk ${opt.sdk}`);
}

async function main() {
    const sdk = await load();
    const client = new sdk.Client(
        { name: `mcpgen-interop-${pkg}`, version: pkgVersion },
        { capabilities: { sampling: {}, elicitation: { form: {} } }, ...sdk.options }
    );
    const seen = { elicitation: [], sampling: [] };
    sdk.onRequest(client, 'elicitation/create', async req => {
        seen.elicitation.push(req.params);
        return { action: 'accept', content: fillForm(req.params.requestedSchema) };
    });
    sdk.onRequest(client, 'sampling/createMessage', async req => {
        seen.sampling.push(req.params);
        return checks.samplingAnswer;
    });
    const updates = updateWaiter();
    sdk.onResourceUpdated(client, note => updates.deliver(note.params));

    let transport;
    if (opt.transport === 'stdio') {
        transport = new sdk.StdioClientTransport({ command: opt.command, args: positionals, stderr: 'inherit' });
    } else {
        transport = new sdk.StreamableHTTPClientTransport(new URL(opt.url), { fetch: recordingFetch });
    }
    // Every message the server sends, in wire order, for the progress check.
    const wire = [];
    let deliver;
    Object.defineProperty(transport, 'onmessage', {
        configurable: true,
        get: () => (deliver ? tap : undefined),
        set: fn => {
            deliver = fn;
        }
    });
    function tap(msg, extra) {
        wire.push(msg);
        deliver?.(msg, extra);
    }
    // Both SDKs tell the transport the negotiated version through this hook.
    const setVersion = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = v => {
        row.protocol = v;
        setVersion?.(v);
    };

    // Errors the SDK reports without failing a call (a broken GET stream, an
    // unparsable message) are kept as warnings for the report.
    client.onerror = err => {
        row.warnings ??= [];
        if (row.warnings.length < 10) row.warnings.push(String(err?.message ?? err));
    };
    try {
        await withTimeout(client.connect(transport, { timeout: timeoutMs }), timeoutMs, 'connect');
    } catch (err) {
        for (const name of checks.order) row.results[name] = { ok: false, detail: `connect: ${err?.message ?? err}` };
        return;
    }
    if (!row.protocol && typeof client.getNegotiatedProtocolVersion === 'function') {
        row.protocol = client.getNegotiatedProtocolVersion() ?? '';
    }

    const call = (name, args, extra = {}) =>
        withTimeout(sdk.callTool(client, { name, arguments: args }, { timeout: timeoutMs, ...extra }), timeoutMs + 1000, `tools/call ${name}`);

    for (const name of checks.order) {
        try {
            row.results[name] = await checks[name]({ call, client, seen, wire, onGet, updates, transport: opt.transport, protocol: row.protocol, noGet });
        } catch (err) {
            row.results[name] = { ok: false, detail: String(err?.message ?? err) };
        }
    }
    try {
        await withTimeout(client.close(), 5000, 'close');
    } catch {
        // closing is best effort; the results are already in
    }
}

try {
    await main();
} catch (err) {
    for (const name of checks.order) row.results[name] ??= { ok: false, detail: String(err?.message ?? err) };
}
if (row.transport === 'http') {
    row.get = gets.length === 0 ? 'none' : gets.includes(200) ? 'opened' : `refused ${gets[0]}${noGet ? ' (client)' : ''}`;
}
process.stdout.write(JSON.stringify(row) + '\n');
process.exit(checks.order.every(n => row.results[n]?.ok) ? 0 : 1);
