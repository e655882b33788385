// Drives the 2025-11-25 experimental tasks of an MCP server with the
// TypeScript SDK v1's task API (client.experimental.tasks): callToolStream
// of a task that computes (slow_compute) and of one that asks a question on
// its tasks/result stream (confirm_delete), then getTask, listTasks and
// cancelTask. Prints one line per check and exits 0 only when all passed.
//
//   node ts-tasks.mjs --url URL
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const { values: opt } = parseArgs({ options: { url: { type: 'string' } } });
const deadline = setTimeout(() => {
    console.log('ts-tasks: FAIL: no end within 60s');
    process.exit(1);
}, 60_000);

const client = new Client({ name: 'mcpgen-interop-ts-tasks', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
let asked = 0;
client.setRequestHandler(ElicitRequestSchema, async () => {
    asked++;
    return { action: 'accept', content: { confirm: true } };
});
await client.connect(new StreamableHTTPClientTransport(new URL(opt.url)));

let failed = 0;
const check = (name, ok, detail) => {
    console.log(`ts-tasks: ${ok ? 'ok  ' : 'FAIL'} ${name}${ok ? '' : ': ' + detail}`);
    if (!ok) failed++;
};

async function stream(name, args) {
    const seen = [];
    let result, error, taskId;
    for await (const m of client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, { task: { ttl: 60000 } })) {
        if (m.type === 'taskCreated') taskId = m.task.taskId;
        if (m.type === 'taskCreated' || m.type === 'taskStatus') seen.push(m.task.status);
        if (m.type === 'result') result = m.result;
        if (m.type === 'error') error = m.error;
    }
    const text = result?.content?.find((c) => c.type === 'text')?.text;
    return { seen, text, error, taskId };
}

try {
    const sc = await stream('slow_compute', { seconds: 1, label: 'ts' });
    check('callToolStream slow_compute', sc.text?.includes('Result: 42') && sc.seen[0] === 'working', JSON.stringify(sc));

    const cd = await stream('confirm_delete', { filename: 'ts.txt' });
    check('callToolStream confirm_delete (elicitation on tasks/result)', cd.text === "deleted 'ts.txt'" && asked === 1 && cd.seen.includes('input_required'), JSON.stringify({ ...cd, asked }));

    const got = await client.experimental.tasks.getTask(cd.taskId);
    check('getTask', got.status === 'completed' && got.taskId === cd.taskId, JSON.stringify(got));

    const list = await client.experimental.tasks.listTasks();
    check('listTasks', [sc.taskId, cd.taskId].every((id) => list.tasks.some((t) => t.taskId === id)), JSON.stringify(list));

    const long = client.experimental.tasks.callToolStream({ name: 'slow_compute', arguments: { seconds: 60, label: 'ts-cancel' } }, CallToolResultSchema, { task: { ttl: 60000 } });
    const first = await long.next();
    const id = first.value?.task?.taskId;
    const cancelled = await client.experimental.tasks.cancelTask(id);
    await long.return?.();
    check('cancelTask', cancelled.status === 'cancelled', JSON.stringify(cancelled));
} catch (e) {
    check('tasks', false, e?.stack ?? String(e));
}
clearTimeout(deadline);
await client.close();
process.exit(failed ? 1 : 0);
