// Checks that the TypeScript SDK v1 client (@modelcontextprotocol/sdk, 2025
// era only) accepts what the server sends for tools whose outputSchema root
// is not an object: tools/list must parse (the SDK rejects the whole list on
// a non-object root), and each call's structuredContent must parse and pass
// the SDK's own validation against the advertised outputSchema. Prints one
// JSON object: {"tools": {name: advertisedSchema}, "calls": {name:
// structuredContent}} and exits 0, or prints the error and exits 1.
//
//   node output_roots.mjs URL TOOL...
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, ...names] = process.argv.slice(2);
const client = new Client({ name: 'mcpgen-interop-output-roots', version: '1.0.0' });
try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const tools = {};
    for (const t of (await client.listTools()).tools) tools[t.name] = t.outputSchema;
    const calls = {};
    for (const name of names) {
        const res = await client.callTool({ name, arguments: {} });
        if (res.isError) throw new Error(`${name}: ${JSON.stringify(res.content)}`);
        calls[name] = res.structuredContent;
    }
    console.log(JSON.stringify({ tools, calls }));
    await client.close();
    process.exit(0);
} catch (e) {
    console.log(JSON.stringify({ error: String(e && e.stack || e) }));
    process.exit(1);
}
