// The round trips every client makes against the conformance example server
// (elicitation, sampling, progress, plain call, the first three at once, and
// prompts, resources and completion, resource subscriptions), and what each must see. The Go clients (interop/*_test.go) check the same
// things in the same order.

export const SIMPLE_TEXT = 'This is a simple text response for testing.';
export const SAMPLED_TEXT = 'interop: a sampled reply from the client';

// fillForm answers a form-mode requestedSchema with a value for every property,
// chosen from the property's own constraints, so the server's validation of
// the answer passes. Strings are recognisable ("interop-<name>") so the tool
// result can be checked for them.
export function fillForm(schema) {
    const content = {};
    for (const [key, prop] of Object.entries(schema?.properties ?? {})) {
        content[key] = fillValue(key, prop);
    }
    return content;
}

function fillValue(key, prop) {
    if (Array.isArray(prop.enum) && prop.enum.length) return prop.enum[0];
    if (Array.isArray(prop.oneOf) && prop.oneOf.length) return prop.oneOf[0].const;
    switch (prop.type) {
        case 'boolean':
            return true;
        case 'integer':
        case 'number': {
            let v = prop.type === 'integer' ? 7 : 7.5;
            if (typeof prop.minimum === 'number' && v < prop.minimum) v = prop.minimum;
            if (typeof prop.maximum === 'number' && v > prop.maximum) v = prop.maximum;
            return v;
        }
        case 'array': {
            const items = prop.items ?? {};
            const first = items.enum?.[0] ?? items.anyOf?.[0]?.const ?? items.oneOf?.[0]?.const;
            return first === undefined ? [] : [first];
        }
        default:
            switch (prop.format) {
                case 'email':
                    return `interop-${key}@example.com`;
                case 'uri':
                    return `https://example.com/interop-${key}`;
                case 'date':
                    return '2026-07-28';
                case 'date-time':
                    return '2026-07-28T12:00:00Z';
            }
            return `interop-${key}`;
    }
}

function texts(result) {
    return (result?.content ?? []).filter(c => c.type === 'text').map(c => c.text);
}

function brief(s, n = 120) {
    s = String(s);
    return s.length > n ? s.slice(0, n) + '…' : s;
}

function expectComplete(result) {
    if (!result) throw new Error('no result');
    if (result.isError) throw new Error(`isError result: ${brief(texts(result).join(' '))}`);
}

export const checks = {
    order: ['elicitation', 'sampling', 'progress', 'plain', 'concurrent', 'features', 'subscriptions'],

    samplingAnswer: {
        role: 'assistant',
        content: { type: 'text', text: SAMPLED_TEXT },
        model: 'mcpgen-interop-model',
        stopReason: 'endTurn'
    },

    async elicitation(ctx) {
        const { call, seen } = ctx;
        const wireStart = ctx.wire.length;
        const getStart = ctx.onGet.length;
        const result = await call('test_elicitation', { message: 'interop: please fill in this form' });
        expectComplete(result);
        const asked = seen.elicitation.at(-1);
        if (!asked) throw new Error('the tool returned without sending elicitation/create');
        if (asked.mode !== undefined && asked.mode !== 'form') throw new Error(`elicitation mode ${asked.mode}, want form`);
        const sent = fillForm(asked.requestedSchema);
        const marker = Object.values(sent).find(v => typeof v === 'string');
        const text = texts(result).join('\n');
        if (marker !== undefined && !text.includes(marker)) {
            throw new Error(`result does not carry the accepted content (${JSON.stringify(marker)}): ${brief(text)}`);
        }
        if (!/accept/i.test(text)) throw new Error(`result does not say the form was accepted: ${brief(text)}`);
        const how = route(ctx, wireStart, getStart, 'elicitation/create');
        return { ok: true, detail: `form ${Object.keys(sent).join(',')} accepted, ${how}` };
    },

    async sampling(ctx) {
        const { call, seen } = ctx;
        const wireStart = ctx.wire.length;
        const getStart = ctx.onGet.length;
        const result = await call('test_sampling', { prompt: 'interop: say hello' });
        expectComplete(result);
        if (seen.sampling.length === 0) throw new Error('the tool returned without sending sampling/createMessage');
        const text = texts(result).join('\n');
        if (!text.includes(SAMPLED_TEXT)) throw new Error(`result does not carry the sampled text: ${brief(text)}`);
        return { ok: true, detail: `sampled text returned, ${route(ctx, wireStart, getStart, 'sampling/createMessage')}` };
    },

    // The server's notifications are counted on the wire (in the order the
    // transport received them, before the tool's response) and, separately,
    // as the SDK delivered them to the onprogress callback by the time the
    // call resolved.
    async progress({ call, wire }) {
        const notes = [];
        const start = wire.length;
        const result = await call('test_tool_with_progress', {}, { onprogress: p => notes.push(p) });
        expectComplete(result);
        const onWire = [];
        for (const msg of wire.slice(start)) {
            if ('id' in msg && ('result' in msg || 'error' in msg)) break;
            if (msg.method === 'notifications/progress') onWire.push(msg.params);
        }
        if (onWire.length < 3) throw new Error(`${onWire.length} progress notifications before the response, want >= 3`);
        for (let i = 1; i < onWire.length; i++) {
            if (onWire[i].progress < onWire[i - 1].progress) throw new Error(`progress went down: ${JSON.stringify(onWire)}`);
        }
        const last = onWire.at(-1);
        let detail = `${onWire.length} before the result, last ${last.progress}/${last.total ?? '?'}`;
        if (notes.length < onWire.length) detail += ` (SDK callback had ${notes.length} when the call resolved)`;
        return { ok: true, detail };
    },

    async plain({ call }) {
        const result = await call('test_simple_text', {});
        expectComplete(result);
        const text = texts(result).join('\n');
        if (text !== SIMPLE_TEXT) throw new Error(`text ${JSON.stringify(brief(text))}, want ${JSON.stringify(SIMPLE_TEXT)}`);
        return { ok: true, detail: 'text matches' };
    }
};

// route says how the server's requests of method reached the client during
// one call: on the stream of the tools/call that caused them (the
// request-scoped sender; SEP-2260 makes that a MUST for sampling and
// elicitation), as an input_required round (2026-07-28: no server request
// crosses the wire), or on the standalone GET stream, which is an error.
function route(ctx, wireStart, getStart, method) {
    const onGet = ctx.onGet.slice(getStart).join('');
    if (new RegExp(`"method"\\s*:\\s*"${method}"`).test(onGet)) {
        throw new Error(`${method} arrived on the standalone GET stream, not on the stream of the tools/call that caused it`);
    }
    const asRequest = ctx.wire.slice(wireStart).some(m => m.method === method && 'id' in m);
    if (!asRequest) return 'as an input_required round';
    return ctx.transport === 'stdio' ? 'as a request on stdio' : 'on the POST stream';
}

// concurrent: an elicitation, a sampling request and a progress call in
// flight at once on one session; each server request must ride its own
// call's stream and each answer must reach the right call.
checks.concurrent = async function concurrent(ctx) {
    const { call, seen } = ctx;
    const before = { elicitation: seen.elicitation.length, sampling: seen.sampling.length };
    const [e, s, p] = await Promise.all([
        call('test_elicitation', { message: 'interop: concurrent form' }),
        call('test_sampling', { prompt: 'interop: concurrent prompt' }),
        call('test_tool_with_progress', {}, { onprogress: () => {} })
    ]);
    for (const r of [e, s, p]) expectComplete(r);
    if (seen.elicitation.length === before.elicitation) throw new Error('no elicitation/create during the concurrent calls');
    if (seen.sampling.length === before.sampling) throw new Error('no sampling/createMessage during the concurrent calls');
    const et = texts(e).join('\n');
    const st = texts(s).join('\n');
    if (!et.includes('interop-') || et.includes(SAMPLED_TEXT)) throw new Error(`the elicitation call got the wrong answer: ${brief(et)}`);
    if (!st.includes(SAMPLED_TEXT)) throw new Error(`the sampling call got the wrong answer: ${brief(st)}`);
    return { ok: true, detail: 'three calls at once, each got its own answer' };
};

export function withTimeout(promise, ms, what) {
    let timer;
    const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms (deadlock?)`)), ms);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// features: prompts, resources, the resource template and completion, through
// the SDK's own typed methods; the prompt that elicits is answered the way
// the SDK answers a tool's question (live in a session, input_required
// rounds in 2026-07-28).
checks.features = async function features(ctx) {
    const { client, seen } = ctx;
    const t = (p, what) => withTimeout(p, 20000, what);
    const prompts = (await t(client.listPrompts(), 'prompts/list')).prompts.map(p => p.name);
    if (!prompts.includes('test_prompt_with_arguments')) throw new Error(`prompts/list: ${prompts}`);
    const got = await t(client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'interop-1', arg2: 'interop-2' } }), 'prompts/get');
    const gotText = JSON.stringify(got.messages);
    if (!gotText.includes('interop-1') || !gotText.includes('interop-2')) throw new Error(`prompts/get: ${brief(gotText)}`);
    const image = await t(client.getPrompt({ name: 'test_prompt_with_image' }), 'prompts/get image');
    if (!image.messages.some(m => m.content.type === 'image' && m.content.data)) throw new Error(`no image block: ${brief(JSON.stringify(image))}`);
    const resources = (await t(client.listResources(), 'resources/list')).resources.map(r => r.uri);
    if (!resources.includes('test://static-text')) throw new Error(`resources/list: ${resources}`);
    const read = await t(client.readResource({ uri: 'test://static-text' }), 'resources/read');
    if (!read.contents[0]?.text) throw new Error(`resources/read: ${brief(JSON.stringify(read))}`);
    const blob = await t(client.readResource({ uri: 'test://static-binary' }), 'resources/read blob');
    if (!blob.contents[0]?.blob) throw new Error(`resources/read blob: ${brief(JSON.stringify(blob))}`);
    const templates = (await t(client.listResourceTemplates(), 'resources/templates/list')).resourceTemplates.map(r => r.uriTemplate);
    if (!templates.includes('test://template/{id}/data')) throw new Error(`resources/templates/list: ${templates}`);
    const fromTemplate = await t(client.readResource({ uri: 'test://template/4242/data' }), 'resources/read template');
    if (!fromTemplate.contents[0]?.text?.includes('4242')) throw new Error(`template read: ${brief(JSON.stringify(fromTemplate))}`);
    const done = await t(client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'test' } }), 'completion/complete');
    if (!done.completion.values.includes('testValue1')) throw new Error(`completion/complete: ${JSON.stringify(done.completion)}`);
    const before = seen.elicitation.length;
    const asked = await t(client.getPrompt({ name: 'test_input_required_result_prompt' }), 'prompts/get that elicits');
    if (seen.elicitation.length === before) throw new Error('prompts/get returned without asking user_context');
    const askedText = JSON.stringify(asked.messages);
    if (!askedText.includes('interop-context')) throw new Error(`the eliciting prompt did not use the answer: ${brief(askedText)}`);
    return { ok: true, detail: `${prompts.length} prompts, ${resources.length} resources, ${templates.length} template; get, read (text, blob, template), complete, and a prompt that elicits` };
};

// WATCHED_URI is the resource test_trigger_resource_update announces.
export const WATCHED_URI = 'test://watched-resource';
const UPDATE_WAIT_MS = 10000;

// subscriptions: a resource subscription and the notifications/resources/updated
// it brings. Legacy sessions call resources/subscribe, the trigger tool, wait
// for the notification (on the GET stream, or the stdio connection), then
// resources/unsubscribe; without a GET stream a legacy session has nowhere to
// receive an unsolicited notification, so the wait is skipped and the result
// says so (n/a, not ok). 2026-07-28 connections open subscriptions/listen with
// resourceSubscriptions, call the trigger, wait for the notification on the
// listen stream, then close the subscription. ctx.updates is fed by the SDK's
// own notification handler.
checks.subscriptions = async function subscriptions(ctx) {
    const { client, call, updates } = ctx;
    const t = (p, what) => withTimeout(p, 20000, what);
    const modern = ctx.protocol === '2026-07-28';
    if (modern) {
        if (typeof client.listen !== 'function') return { ok: true, na: true, detail: 'this SDK has no subscriptions/listen API' };
        const sub = await t(client.listen({ resourceSubscriptions: [WATCHED_URI] }), 'subscriptions/listen');
        const honored = sub.honoredFilter?.resourceSubscriptions ?? [];
        try {
            if (!honored.includes(WATCHED_URI)) throw new Error(`subscriptions/listen honored ${JSON.stringify(sub.honoredFilter)}, want resourceSubscriptions [${WATCHED_URI}]`);
            const got = updates.next(WATCHED_URI, UPDATE_WAIT_MS);
            expectComplete(await call('test_trigger_resource_update', {}));
            await got;
        } finally {
            await withTimeout(sub.close(), 5000, 'closing the subscription');
        }
        const how = await withTimeout(sub.closed, 5000, 'the subscription to end');
        return { ok: true, detail: `subscriptions/listen acknowledged ${WATCHED_URI}, notifications/resources/updated arrived on the listen stream, closed (${how})` };
    }
    await t(client.subscribeResource({ uri: WATCHED_URI }), 'resources/subscribe');
    if (ctx.noGet) {
        await t(client.unsubscribeResource({ uri: WATCHED_URI }), 'resources/unsubscribe');
        return {
            ok: true,
            na: true,
            detail: 'resources/subscribe and resources/unsubscribe answered; no wait for notifications/resources/updated: without a GET stream a 2025 session cannot receive an unsolicited notification'
        };
    }
    const got = updates.next(WATCHED_URI, UPDATE_WAIT_MS);
    expectComplete(await call('test_trigger_resource_update', {}));
    await got;
    await t(client.unsubscribeResource({ uri: WATCHED_URI }), 'resources/unsubscribe');
    const where = ctx.transport === 'stdio' ? 'on stdio' : 'on the GET stream';
    return { ok: true, detail: `resources/subscribe, notifications/resources/updated for ${WATCHED_URI} arrived ${where}, resources/unsubscribe` };
};

// updateWaiter collects the notifications/resources/updated the SDK delivers
// and lets a check wait (bounded) for the next one with a given uri.
export function updateWaiter() {
    const waiting = [];
    return {
        seen: 0,
        deliver(params) {
            this.seen++;
            for (const w of waiting.splice(0)) {
                if (params?.uri === w.uri) w.resolve(params);
                else waiting.push(w);
            }
        },
        next(uri, ms) {
            return withTimeout(new Promise(resolve => waiting.push({ uri, resolve })), ms, `notifications/resources/updated for ${uri}`);
        }
    };
}
