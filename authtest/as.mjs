// A real OAuth 2.1 authorization server on loopback for the tests:
// oauth2-mock-server (real keys, JWKS, PKCE, token endpoint) plus the few
// things MCP clients need that it lacks: RFC 8414 metadata at
// /.well-known/oauth-authorization-server, dynamic client registration,
// RFC 8707 resource indicators (the token's aud is the resource the client
// asked for), the scope asked for at /authorize carried into the token, and a
// real RFC 7662 introspection endpoint. Loopback-only /test/* routes let a
// test pick the user who "logs in", switch refresh tokens off, and obtain
// tokens with a chosen flaw through the token endpoint itself, and rotate
// the signing keys.
//
// Prints {"issuer": URL} on stdout once listening; exits when stdin closes.
import { randomUUID } from 'node:crypto';
import { OAuth2Issuer, OAuth2Server } from 'oauth2-mock-server';

const server = new OAuth2Server(undefined, undefined, { endpoints: { introspect: '/builtin-introspect' } });
await server.issuer.keys.generate('RS256');
const foreign = new OAuth2Issuer(); // signs with keys nobody publishes
await foreign.keys.generate('RS256');

const config = { user: 'alice', refresh: true, ttl: 3600 };
const codes = new Map(); // code -> {scope, resource, user}
const refreshTokens = new Map(); // refresh token -> {scope, resource, user}
const issued = new Map(); // access token -> payload, for introspection
const log = [];
const introspectionClient = { id: 'mcpgen-rs', secret: 'rs-secret' };

const svc = server.service;
svc.on('beforeWellKnownOpenIdConfiguration', doc => {
    doc.body.registration_endpoint = `${server.issuer.url}/register`;
    doc.body.introspection_endpoint = `${server.issuer.url}/introspect`;
    doc.body.token_endpoint_auth_methods_supported = ['none', 'client_secret_basic'];
    doc.body.grant_types_supported.push('refresh_token');
    doc.body.code_challenge_methods_supported = ['S256'];
});
svc.addRoute('GET', '/.well-known/oauth-authorization-server', (req, res) => {
    log.push({ path: '/.well-known/oauth-authorization-server' });
    svc.openidConfigurationHandler(req, res);
});
svc.addRoute('POST', '/register', (req, res) => {
    log.push({ path: '/register', body: req.body });
    const body = { ...req.body, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) };
    res.writeHead(201, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
});
svc.on('beforeAuthorizeRedirect', (redir, req) => {
    const q = new URL(req.url, 'http://x').searchParams;
    const code = redir.url.searchParams.get('code');
    const rec = { scope: q.get('scope') ?? undefined, resource: q.get('resource') ?? undefined, user: config.user };
    if (code) codes.set(code, rec);
    log.push({ path: '/authorize', scope: rec.scope, resource: rec.resource, code_challenge_method: q.get('code_challenge_method'), user: rec.user });
});
svc.on('beforeTokenSigning', (token, req) => {
    const p = token.payload;
    if (!('scope' in p)) return; // the id_token of the same response
    const b = req.body;
    let rec;
    switch (b.grant_type) {
        case 'authorization_code':
            rec = codes.get(b.code) ?? {};
            codes.delete(b.code);
            break;
        case 'refresh_token':
            rec = refreshTokens.get(b.refresh_token) ?? {};
            break;
        case 'password':
            rec = { user: b.username, scope: b.scope, resource: b.resource };
            break;
        default:
            rec = { user: b.client_id ?? 'client', scope: b.scope, resource: b.resource ?? b.aud };
    }
    const scope = b.grant_type === 'refresh_token' ? (b.scope ?? rec.scope) : rec.scope;
    p.sub = rec.user;
    p.scope = scope;
    p.aud = b.resource ?? rec.resource;
    p.client_id = b.client_id;
    p.exp = p.iat + config.ttl;
    // Flaws on request (password grant only: the raw tests).
    if (b.grant_type === 'password') {
        if (b.test_exp !== undefined) p.exp = p.iat + Number(b.test_exp);
        if (b.test_no_exp) delete p.exp;
        if (b.test_iss) p.iss = b.test_iss;
        if (b.test_aud) p.aud = b.test_aud;
        if (b.test_nbf) p.nbf = p.iat + Number(b.test_nbf);
    }
    req.granted = { user: rec.user, scope, resource: p.aud, payload: p };
});
svc.on('beforeResponse', (resp, req) => {
    const b = req.body;
    const g = req.granted;
    log.push({ path: '/token', grant_type: b.grant_type, resource: b.resource, scope: g?.scope, status: resp.statusCode });
    if (!g || resp.statusCode !== 200) return;
    resp.body.scope = g.scope;
    resp.body.expires_in = config.ttl;
    issued.set(resp.body.access_token, g.payload);
    delete resp.body.id_token;
    if (config.refresh && resp.body.refresh_token) {
        refreshTokens.set(resp.body.refresh_token, { user: g.user, scope: g.scope, resource: g.resource });
    } else {
        delete resp.body.refresh_token;
    }
});
svc.addRoute('POST', '/introspect', (req, res) => {
    const auth = req.headers.authorization ?? '';
    const want = 'Basic ' + Buffer.from(`${introspectionClient.id}:${introspectionClient.secret}`).toString('base64');
    log.push({ path: '/introspect', authorized: auth === want });
    if (auth !== want) {
        res.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Basic' });
        res.end(JSON.stringify({ error: 'invalid_client' }));
        return;
    }
    const p = issued.get(req.body.token);
    const active = p !== undefined && (p.exp === undefined || p.exp > Date.now() / 1000);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(active ? { active: true, ...p, token_type: 'Bearer' } : { active: false }));
});
svc.addRoute('POST', '/test/config', (req, res) => {
    Object.assign(config, req.body);
    res.writeHead(204);
    res.end();
});
svc.addRoute('GET', '/test/log', (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(log.splice(0)));
});
svc.addRoute('POST', '/test/foreign-token', async (req, res) => {
    const b = req.body;
    const token = await foreign.buildToken({
        scopesOrTransform: (_h, p) => Object.assign(p, { iss: server.issuer.url, sub: b.sub, scope: b.scope, aud: b.resource })
    });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ access_token: token }));
});

svc.addRoute('POST', '/test/rotate', async (_req, res) => {
    const key = await server.issuer.keys.generate('RS256');
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ kid: key.kid }));
});

await server.start(0, '127.0.0.1');
const { port } = server.address();
server.issuer.url = `http://127.0.0.1:${port}`;
foreign.url = server.issuer.url;
process.stdout.write(JSON.stringify({ issuer: server.issuer.url }) + '\n');
process.stdin.resume();
process.stdin.on('end', async () => {
    await server.stop();
    process.exit(0);
});
