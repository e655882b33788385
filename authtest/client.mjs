// A real MCP client that starts from a bare URL and authorizes through MCP's
// discovery alone: the 401's resource_metadata, the Protected Resource
// Metadata, the authorization server's metadata, dynamic registration, PKCE
// authorization code with the resource indicator, then a scoped tool call,
// and on the 403 insufficient_scope a step-up to a token with more scopes.
//
//   node client.mjs --sdk v1|v2 [--era legacy|modern] [--outlive MS] --url URL
//
// The "browser" is one GET of the authorization URL whose 302 Location
// carries the code, or, when it answers with a consent page, the POST of
// its Approve button. Prints one JSON line: {ok, steps, read, write, error}.
import { parseArgs } from 'node:util';

const { values: opt } = parseArgs({
    options: {
        sdk: { type: 'string' },
        era: { type: 'string', default: 'legacy' },
        url: { type: 'string' },
        // --outlive MS: after the first read, wait MS for the token to expire
        // and read again (the client must refresh or re-authorize).
        outlive: { type: 'string' }
    }
});
const REDIRECT = 'http://127.0.0.1:1/callback'; // never contacted

class HeadlessProvider {
    constructor() {
        this.steps = [];
    }
    get redirectUrl() {
        return REDIRECT;
    }
    get clientMetadata() {
        return {
            client_name: 'mcpgen-authtest',
            redirect_uris: [REDIRECT],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none'
        };
    }
    clientInformation() {
        return this.client;
    }
    saveClientInformation(c) {
        this.client = c;
    }
    tokens() {
        return this.t;
    }
    saveTokens(t) {
        this.t = t;
        this.steps.push(`token scope=${t.scope}`);
    }
    saveCodeVerifier(v) {
        this.v = v;
    }
    codeVerifier() {
        return this.v;
    }
    saveDiscoveryState(s) {
        this.ds = s;
    }
    discoveryState() {
        return this.ds;
    }
    async redirectToAuthorization(url) {
        this.steps.push(`authorize scope=${url.searchParams.get('scope')}`);
        let r = await fetch(url, { redirect: 'manual' });
        if (r.status === 200) {
            // A consent page (mcpgen's development issuer): click Approve,
            // as a user in the browser would.
            const page = await r.text();
            const m = page.match(/name="request" value="([^"]+)"/);
            if (!m) throw new Error(`the authorization page has no consent form: ${page.slice(0, 200)}`);
            this.steps.push('consent: approved');
            r = await fetch(new URL('/authorize', url), {
                method: 'POST',
                redirect: 'manual',
                headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
                body: new URLSearchParams({ request: m[1], decision: 'approve', user: 'alice' })
            });
        }
        this.params = new URL(r.headers.get('location')).searchParams;
    }
}

// noGet answers the standalone GET stream of the MCP endpoint with 405, so
// the MCP exchange is only POSTs; discovery GETs go out.
const noGet = (url, init) =>
    (init?.method ?? 'GET') === 'GET' && String(url) === opt.url
        ? Promise.resolve(new Response(null, { status: 405 }))
        : fetch(url, init);

async function load() {
    if (opt.sdk === 'v1') {
        const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
        const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
        const { UnauthorizedError } = await import('@modelcontextprotocol/sdk/client/auth.js');
        return { Client, StreamableHTTPClientTransport, UnauthorizedError, options: {}, finish: (tr, p) => tr.finishAuth(p.params.get('code')) };
    }
    const { Client, StreamableHTTPClientTransport, UnauthorizedError } = await import('@modelcontextprotocol/client');
    const options = opt.era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
    return { Client, StreamableHTTPClientTransport, UnauthorizedError, options, finish: (tr, p) => tr.finishAuth(p.params) };
}

const out = { ok: false, sdk: opt.sdk, era: opt.era };
const provider = new HeadlessProvider();
out.steps = provider.steps;
try {
    const sdk = await load();
    const url = new URL(opt.url);
    const connect = async () => {
        const transport = new sdk.StreamableHTTPClientTransport(url, { authProvider: provider, fetch: noGet });
        const client = new sdk.Client({ name: 'mcpgen-authtest', version: '1.0.0' }, { capabilities: {}, ...sdk.options });
        await client.connect(transport);
        return { client, transport };
    };
    let c;
    try {
        c = await connect();
    } catch (e) {
        if (!(e instanceof sdk.UnauthorizedError)) throw e;
        provider.steps.push('401: authorized');
        const transport = new sdk.StreamableHTTPClientTransport(url, { authProvider: provider, fetch: noGet });
        await sdk.finish(transport, provider);
        c = await connect();
    }
    const text = r => r.content.map(b => b.text).join('');
    out.tools = (await c.client.listTools()).tools.map(t => t.name);
    out.read = text(await c.client.callTool({ name: 'read', arguments: {} }));
    if (opt.outlive) {
        await new Promise(r => setTimeout(r, Number(opt.outlive)));
        provider.steps.push('token expired');
        out.readAfterExpiry = text(await c.client.callTool({ name: 'read', arguments: {} }));
    }
    try {
        out.write = text(await c.client.callTool({ name: 'write', arguments: {} }));
    } catch (e) {
        if (!(e instanceof sdk.UnauthorizedError)) throw e;
        provider.steps.push('403: stepped up');
        await sdk.finish(c.transport, provider);
        out.write = text(await c.client.callTool({ name: 'write', arguments: {} }));
    }
    await c.client.close();
    out.ok = true;
} catch (e) {
    out.error = String(e?.stack ?? e);
}
process.stdout.write(JSON.stringify(out) + '\n');
process.exit(0);
