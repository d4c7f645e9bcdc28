// The scripted model server, spoken to directly as each vendor's API: the streams the real CLIs read
// (tests/real-agents drives the CLIs themselves), the script's turns, the usage it counts, the faults.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { cleanupTempDirs, makeTempDir, startModelServer, type ModelServer } from '../src/index.js';

test.after(cleanupTempDirs);

async function post(
  server: ModelServer,
  path: string,
  body: unknown,
): Promise<{ status: number; text: string; type: string; retryAfter: string | null }> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    text: await res.text(),
    type: res.headers.get('content-type') ?? '',
    retryAfter: res.headers.get('retry-after'),
  };
}

// The `data:` payloads of an SSE stream, with their `event:` names.
function events(text: string): { name: string | null; data: Record<string, any> }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const name = /^event: (.*)$/m.exec(block)?.[1] ?? null;
      const data = /^data: (.*)$/m.exec(block)?.[1];
      return { name, data: JSON.parse(data ?? 'null') };
    });
}

const CLAUDE_TOOLS = [{ name: 'Write' }, { name: 'Read' }, { name: 'Bash' }, { name: 'StructuredOutput' }];

test('Anthropic Messages: the script turn by turn, as tool_use blocks and text, with usage split into fresh and cached input', async () => {
  const server = await startModelServer({
    script: [
      { write: '/w/a.txt', content: 'hi\n' },
      { read: '/w/a.txt' },
      { run: 'echo $HOME `id`' },
      { structured: { verdict: 'PASS', reason: 'ok' } },
      { text: 'done: ✓' },
    ],
  });
  try {
    const messages: { role: string; content: unknown }[] = [{ role: 'user', content: 'go' }];
    const seen: unknown[] = [];
    for (let turn = 0; turn < 5; turn++) {
      const res = await post(server, '/v1/messages?beta=true', {
        model: 'claude-x',
        stream: true,
        tools: CLAUDE_TOOLS,
        messages,
      });
      assert.is(res.status, 200);
      assert.match(res.type, /text\/event-stream/);
      const stream = events(res.text);
      assert.equal(
        stream.map((e) => e.name),
        [
          'message_start',
          'content_block_start',
          'content_block_delta',
          'content_block_stop',
          'message_delta',
          'message_stop',
        ],
      );
      assert.ok(
        stream.every((e) => e.name === e.data.type),
        'every event names its type twice, as the API does',
      );
      const block = stream[1]!.data.content_block;
      const delta = stream[2]!.data.delta;
      seen.push(block.type === 'tool_use' ? [block.name, JSON.parse(delta.partial_json)] : delta.text);
      assert.is(stream[4]!.data.delta.stop_reason, block.type === 'tool_use' ? 'tool_use' : 'end_turn');
      assert.is(stream[0]!.data.message.model, 'claude-x');
      messages.push({ role: 'assistant', content: [block] }, { role: 'user', content: 'result' });
    }
    assert.equal(seen, [
      ['Write', { file_path: '/w/a.txt', content: 'hi\n' }],
      ['Read', { file_path: '/w/a.txt' }],
      ['Bash', { command: 'echo $HOME `id`', description: 'run a command' }],
      ['StructuredOutput', { verdict: 'PASS', reason: 'ok' }],
      'done: ✓',
    ]);
    const answered = server.requests.filter((r) => r.usage !== null);
    assert.equal(
      answered.map((r) => r.turn),
      [0, 1, 2, 3, 4],
    );
    const total = server.usage('anthropic');
    assert.is(total.answers, 5);
    assert.is(
      total.input,
      answered.reduce((n, r) => n + r.usage!.input, 0),
    );
    assert.ok(total.cached > 0 && total.cached < total.input, 'part of the input is reported as read from the cache');
    // What the stream reported is what the server counted: input_tokens plus cache reads is the input.
    const res = await post(server, '/v1/messages', {
      model: 'claude-x',
      tools: CLAUDE_TOOLS,
      messages: [{ role: 'user', content: 'again' }],
    });
    const message = JSON.parse(res.text);
    const last = server.requests.at(-1)!.usage!;
    assert.is(message.type, 'message');
    assert.is(message.usage.input_tokens + message.usage.cache_read_input_tokens, last.input);
    assert.is(message.usage.output_tokens, last.output);
    assert.is(message.content[0].name, 'Write', 'a non-streaming retry of turn 0 gets turn 0 again');
  } finally {
    await server.close();
  }
});

test('Anthropic: a schema not offered as StructuredOutput gets the JSON as text; a call that offers no tools is a side call outside the script', async () => {
  const server = await startModelServer({ script: [{ structured: { verdict: 'REJECT', reason: 'no' } }] });
  try {
    const plain = events(
      (
        await post(server, '/v1/messages', {
          stream: true,
          tools: [{ name: 'Read' }],
          messages: [{ role: 'user', content: 'x' }],
        })
      ).text,
    );
    assert.is(plain[2]!.data.delta.text, '{"verdict":"REJECT","reason":"no"}');
    const side = events(
      (await post(server, '/v1/messages', { stream: true, messages: [{ role: 'user', content: 'title?' }] })).text,
    );
    assert.is(side[2]!.data.delta.text, 'ok');
    assert.is(server.requests.at(-1)!.turn, null);
    assert.ok(server.requests.at(-1)!.usage !== null, 'a side call still reports usage, and is counted');
  } finally {
    await server.close();
  }
});

test('OpenAI Responses: function_call items for the shell tool, output text, response.completed with usage', async () => {
  const server = await startModelServer({
    script: [
      { write: "/w/it's.txt", content: "a 'quoted' line\n" },
      { run: 'ls' },
      { structured: { verdict: 'PASS', reason: 'ok' } },
    ],
  });
  try {
    const input: unknown[] = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] }];
    const res0 = await post(server, '/v1/responses', { model: 'gpt-x', stream: true, input });
    const s0 = events(res0.text);
    assert.equal(
      s0.map((e) => e.name),
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.function_call_arguments.delta',
        'response.function_call_arguments.done',
        'response.output_item.done',
        'response.completed',
      ],
    );
    assert.equal(
      s0.map((e) => e.data.sequence_number),
      [0, 1, 2, 3, 4, 5, 6],
    );
    const call = s0[5]!.data.item;
    assert.is(call.name, 'exec_command');
    assert.is(JSON.parse(call.arguments).cmd, `printf '%s' 'a '\\''quoted'\\'' line\n' > '/w/it'\\''s.txt'`);
    input.push(call, { type: 'function_call_output', call_id: call.call_id, output: '' });
    const s1 = events((await post(server, '/v1/responses', { model: 'gpt-x', stream: true, input })).text);
    input.push(s1[5]!.data.item, { type: 'function_call_output', call_id: 'x', output: '' });
    assert.is(JSON.parse(s1[5]!.data.item.arguments).cmd, 'ls');
    const s2 = events((await post(server, '/v1/responses', { model: 'gpt-x', stream: true, input })).text);
    assert.equal(
      s2.map((e) => e.name),
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ],
    );
    assert.is(s2[5]!.data.text, '{"verdict":"PASS","reason":"ok"}');
    const usage = s2[8]!.data.response.usage;
    const counted = server.requests.at(-1)!.usage!;
    assert.equal(
      [usage.input_tokens, usage.input_tokens_details.cached_tokens, usage.output_tokens],
      [counted.input, counted.cached, counted.output],
    );
    assert.is(server.usage('openai').answers, 3);
    assert.is(server.usage('anthropic').answers, 0);
  } finally {
    await server.close();
  }
});

test('Gemini: streamGenerateContent turns as functionCall parts, the router answered outside the script', async () => {
  const server = await startModelServer({
    script: [{ write: '/w/a.txt', content: 'x' }, { read: '/w/a.txt' }, { run: 'true' }, { text: 'fine' }],
  });
  try {
    const router = JSON.parse(
      (
        await post(server, '/v1beta/models/flash-lite:generateContent', {
          contents: [{ role: 'user', parts: [{ text: 'route' }] }],
        })
      ).text,
    );
    const routed = JSON.parse(router.candidates[0].content.parts[0].text);
    assert.is(typeof routed.complexity_score, 'number');
    assert.is(routed.model_choice, 'flash');
    assert.is(router.modelVersion, 'flash-lite');
    const contents: unknown[] = [{ role: 'user', parts: [{ text: 'go' }] }];
    const parts: unknown[] = [];
    for (let turn = 0; turn < 4; turn++) {
      const res = await post(server, '/v1beta/models/pro:streamGenerateContent?alt=sse', { contents });
      const [chunk, ...rest] = events(res.text);
      assert.is(rest.length, 0);
      assert.is(chunk!.name, null, 'Gemini streams bare data lines');
      const part = chunk!.data.candidates[0].content.parts[0];
      parts.push(part);
      assert.is(chunk!.data.usageMetadata.promptTokenCount, server.requests.at(-1)!.usage!.input);
      contents.push({ role: 'model', parts: [part] }, { role: 'user', parts: [{ functionResponse: {} }] });
    }
    assert.equal(parts, [
      { functionCall: { name: 'write_file', args: { file_path: '/w/a.txt', content: 'x' } } },
      { functionCall: { name: 'read_file', args: { file_path: '/w/a.txt' } } },
      { functionCall: { name: 'run_shell_command', args: { command: 'true', description: 'run a command' } } },
      { text: 'fine' },
    ]);
    assert.equal(
      server.requests.map((r) => r.turn),
      [null, 0, 1, 2, 3],
    );
    assert.is(server.usage('google').answers, 5, 'the router call is counted: the CLI counts it too');
  } finally {
    await server.close();
  }
});

test("faults: each vendor's error body for 401, 429, 500 and overload, for the first faultTimes requests of a turn", async () => {
  const expected: Record<string, [number, (body: any) => unknown][]> = {
    '/v1/messages': [
      [401, (b) => b.error.type],
      [429, (b) => b.error.type],
      [500, (b) => b.error.type],
      [529, (b) => b.error.type],
    ],
    '/v1/responses': [
      [401, (b) => b.error.code],
      [429, (b) => b.error.code],
      [500, (b) => b.error.code],
      [503, (b) => b.error.code],
    ],
    '/v1beta/models/m:streamGenerateContent?alt=sse': [
      [401, (b) => b.error.status],
      [429, (b) => b.error.status],
      [500, (b) => b.error.status],
      [503, (b) => b.error.status],
    ],
  };
  const words: unknown[] = [];
  for (const [path, cases] of Object.entries(expected)) {
    for (const [i, fault] of ([401, 429, 500, 'overload'] as const).entries()) {
      const server = await startModelServer({ script: [{ text: 'after', fault, faultTimes: 2 }] });
      try {
        const body = { stream: true, tools: CLAUDE_TOOLS, messages: [], input: [], contents: [] };
        const first = await post(server, path, body);
        const second = await post(server, path, body);
        const [status, read] = cases[i]!;
        assert.equal([first.status, second.status], [status, status], `${path} ${fault}`);
        words.push(read(JSON.parse(first.text)));
        const third = await post(server, path, body);
        assert.is(third.status, 200, 'after faultTimes the turn is answered');
        assert.match(third.text, /after/);
        assert.equal(
          server.requests.map((r) => r.answer),
          [status, status, 200],
        );
        assert.is(server.usage().answers, 1, 'a fault reports no tokens');
      } finally {
        await server.close();
      }
    }
  }
  assert.equal(words, [
    'authentication_error',
    'rate_limit_error',
    'api_error',
    'overloaded_error',
    'invalid_api_key',
    'rate_limit_exceeded',
    'server_error',
    'server_is_overloaded',
    'UNAUTHENTICATED',
    'RESOURCE_EXHAUSTED',
    'INTERNAL',
    'UNAVAILABLE',
  ]);
});

test('faults: a spent quota as each vendor answers one, with no retry-after (no wait helps)', async () => {
  const cases: [string, number, (body: any) => unknown][] = [
    ['/v1/messages', 400, (b) => [b.type, b.error.type, b.error.message]],
    ['/v1/responses', 429, (b) => [b.error.type, b.error.code, b.error.message]],
    [
      '/v1beta/models/m:streamGenerateContent?alt=sse',
      429,
      (b) => [b.error.code, b.error.status, b.error.message, b.error.details[0].violations[0].quotaId],
    ],
  ];
  const seen: unknown[] = [];
  for (const [path, status, read] of cases) {
    const server = await startModelServer({ script: [{ text: 'after', fault: 'quota', faultTimes: 1 }] });
    try {
      const body = { stream: true, tools: CLAUDE_TOOLS, messages: [], input: [], contents: [] };
      const first = await post(server, path, body);
      assert.is(first.status, status, path);
      assert.is(first.retryAfter, null, `${path}: no retry-after`);
      seen.push(read(JSON.parse(first.text)));
      assert.is((await post(server, path, body)).status, 200, 'after faultTimes the turn is answered');
      assert.equal(
        server.requests.map((r) => r.answer),
        [status, 200],
      );
    } finally {
      await server.close();
    }
  }
  assert.equal(seen, [
    [
      'error',
      'invalid_request_error',
      'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
    ],
    [
      'insufficient_quota',
      'insufficient_quota',
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
    ],
    [
      429,
      'RESOURCE_EXHAUSTED',
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
      'GenerateRequestsPerDayPerProjectPerModel-FreeTier',
    ],
  ]);
});

function rawPost(server: ModelServer, path: string): Promise<{ error: string | null; bytes: number }> {
  return new Promise((resolve) => {
    const req = request(`${server.url}${path}`, { method: 'POST' }, (res) => {
      let bytes = 0;
      res.on('data', (b: Buffer) => (bytes += b.length));
      res.on('end', () => resolve({ error: null, bytes }));
      res.on('error', (e) => resolve({ error: e.message, bytes }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message, bytes: 0 }));
    req.end('{"messages":[],"tools":[{"name":"Read"}]}');
  });
}

test('faults: close ends the connection before any answer; hang holds it open with nothing sent until the server closes', async () => {
  const server = await startModelServer({ script: [{ text: 'never', fault: 'close' }] });
  let hung: Promise<{ error: string | null; bytes: number }> | null = null;
  try {
    const closed = await rawPost(server, '/v1/messages');
    assert.is(closed.error, 'ECONNRESET');
    server.setScript([{ text: 'never', fault: 'hang' }]);
    hung = rawPost(server, '/v1/messages');
    const logged = await server.waitForRequest((r) => r.answer === 'hang');
    assert.is(logged.turn, 0);
    assert.equal(
      server.requests.map((r) => r.answer),
      ['close', 'hang'],
    );
  } finally {
    await server.close();
  }
  // The hung request ends only because the server closed: it never received a byte.
  const ended = await hung;
  assert.equal(ended, { error: 'ECONNRESET', bytes: 0 });
});

test('every request is logged, to a file too; unknown paths are 404, the HEAD probe and a models list answer empty', async () => {
  const logFile = join(makeTempDir('leap-model-log-'), 'requests.jsonl');
  const server = await startModelServer({ logFile });
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.is((await fetch(server.url, { method: 'HEAD' })).status, 200);
    assert.is((await fetch(`${server.url}/v1/models`)).status, 200);
    assert.is((await fetch(`${server.url}/elsewhere`)).status, 404);
    const res = await post(server, '/v1/responses', { stream: true, input: [] });
    assert.match(res.text, /"done"/, 'past the end of the script a conversation ends with "done"');
    const lines = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(
      lines.map((l) => [l.method, l.url, l.answer]),
      [
        ['HEAD', '/', 200],
        ['GET', '/v1/models', 200],
        ['GET', '/elsewhere', 404],
        ['POST', '/v1/responses', 200],
      ],
    );
    assert.equal(lines[3].body, { stream: true, input: [] });
  } finally {
    await server.close();
  }
});

test("conversations: each leaf's conversation is answered from the script its prompt picks, turn by turn, and logged with it", async () => {
  const server = await startModelServer({
    script: [{ text: 'default' }],
    conversations: [
      { when: 'Phase: red', script: [{ read: '/w/t.js' }, { text: 'red done' }] },
      { when: 'Phase: green', script: [{ text: 'green done' }] },
    ],
  });
  try {
    const ask = async (messages: { role: string; content: unknown }[]) => {
      const res = await post(server, '/v1/messages', {
        model: 'claude-x',
        stream: true,
        tools: CLAUDE_TOOLS,
        messages,
      });
      const stream = events(res.text);
      return stream[1]!.data.content_block.type === 'tool_use'
        ? stream[1]!.data.content_block
        : stream[2]!.data.delta.text;
    };
    const red = [{ role: 'user', content: 'Phase: red\nStep: one' }];
    const first = await ask(red);
    assert.is(first.name, 'Read');
    assert.is(
      await ask([...red, { role: 'assistant', content: [first] }, { role: 'user', content: 'result' }]),
      'red done',
    );
    assert.is(await ask([{ role: 'user', content: 'Phase: green' }]), 'green done');
    assert.is(await ask([{ role: 'user', content: 'something else' }]), 'default');
    assert.equal(
      server.requests.filter((r) => r.turn !== null).map((r) => [r.conversation, r.turn]),
      [
        ['Phase: red', 0],
        ['Phase: red', 1],
        ['Phase: green', 0],
        [null, 0],
      ],
    );
  } finally {
    await server.close();
  }
});

test.run();
