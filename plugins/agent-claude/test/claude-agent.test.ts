import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AgentRole } from '@leap/core';
import { cleanupTempDirs, hostileTitles, makeTempDir } from '@leap/test-utils';
import {
  claudeJsonSchema,
  claudeRetrying,
  createClaudeAgent,
  explainClaudeFailure,
  parseClaudeOutput,
  parseClaudeUsage,
} from '../src/index.js';
import { OTHER_USER, makeWorktree, runInvocation } from './helpers.js';

const ROLES: AgentRole[] = ['developer', 'verifier', 'reviewer', 'builder', 'planner'];
const READ_ONLY = [
  '-p',
  '--output-format',
  'stream-json',
  '--verbose',
  '--permission-mode',
  'dontAsk',
  '--allowedTools',
  'Read,Glob,Grep',
  '--disallowedTools',
  'Edit,Write,NotebookEdit',
];
const WRITING = [
  '-p',
  '--output-format',
  'stream-json',
  '--verbose',
  '--permission-mode',
  'dontAsk',
  '--allowedTools',
  'Bash,Edit,Write,NotebookEdit,Read,Glob,Grep',
];

const create = suite('createClaudeAgent');
create.after.each(cleanupTempDirs);

create(
  'names the anthropic family; read-only roles pre-approve reading only, writers editing and Bash, all in dontAsk',
  () => {
    const agent = createClaudeAgent();
    assert.is(agent.name, 'claude');
    assert.is(agent.family, 'anthropic');
    const call = agent.buildInvocation('judge this', { role: 'verifier', cwd: '/tmp' });
    assert.is(call.command, 'claude');
    assert.equal(call.args, READ_ONLY);
    assert.is(call.stdin, 'judge this');
    assert.is(call.model, undefined);
    assert.ok('CLAUDECODE' in (call.env ?? {}));
    assert.is(call.env?.CLAUDECODE, undefined);
    assert.equal(agent.buildInvocation('x', { role: 'builder', cwd: '/tmp' }).args, WRITING);
    assert.is(agent.preflight?.({ role: 'developer', cwd: '/tmp' }), null);
  },
);

create('a configured permission mode, tool list, model, schema and extra args are passed', () => {
  const agent = createClaudeAgent({
    name: 'claude-fast',
    bin: '/opt/claude',
    model: 'haiku',
    extraArgs: ['--verbose'],
    writePermissionMode: 'acceptEdits',
    allowedTools: ['Edit'],
  });
  const call = agent.buildInvocation('x', {
    role: 'developer',
    cwd: '/tmp',
    model: 'opus',
    answerSchema: { type: 'object' },
  });
  assert.is(agent.name, 'claude-fast');
  assert.is(call.command, '/opt/claude');
  assert.is(call.model, 'opus');
  assert.equal(call.args, [
    '-p',
    '--output-format',
    'stream-json',
    '--model',
    'opus',
    '--verbose',
    '--permission-mode',
    'acceptEdits',
    '--allowedTools',
    'Edit',
    '--json-schema',
    '{"type":"object"}',
    '--verbose',
  ]);
  const fallback = createClaudeAgent({ model: 'haiku', allowedTools: [] }).buildInvocation('x', {
    role: 'builder',
    cwd: '/tmp',
  });
  assert.equal(fallback.args.slice(3), ['--model', 'haiku', '--verbose', '--permission-mode', 'dontAsk']);
  assert.is(fallback.model, 'haiku');
});

create(
  'every role answers in a fresh worktree, as this user and as another, with hostile prompts intact and usage read',
  async () => {
    const agent = createClaudeAgent();
    const tree = makeWorktree();
    const titles = hostileTitles(ROLES.length, 3);
    for (const uid of [undefined, OTHER_USER ?? undefined]) {
      for (const [i, role] of ROLES.entries()) {
        const title = titles[i] as string;
        const ran = await runInvocation(
          agent.buildInvocation(title, { role, cwd: tree, model: 'sonnet' }),
          { CLAUDECODE: '1' },
          tree,
          uid,
        );
        assert.is(ran.code, 0, `${role} as ${uid ?? 'this user'}: ${ran.stderr}`);
        const answer = agent.parseAnswer(ran.stdout);
        assert.is(answer.text, `echo:${title}`);
        const input = Buffer.byteLength(title);
        assert.equal(answer.usage, {
          model: 'sonnet',
          input_tokens: input + 1200,
          output_tokens: Buffer.byteLength(`echo:${title}`),
          cost_usd: answer.usage?.cost_usd ?? -1,
        });
        assert.ok((answer.usage?.cost_usd ?? 0) > 0);
      }
    }
  },
);

create('bypassPermissions is refused as root, as the real CLI does, and the failure says so in its words', async () => {
  const agent = createClaudeAgent({ writePermissionMode: 'bypassPermissions', allowedTools: [] });
  const call = agent.buildInvocation('x', { role: 'developer', cwd: '/tmp' });
  // Only root can show the refusal; another user runs it (the test below, as nobody).
  if (process.getuid?.() !== 0) return;
  const ran = await runInvocation(call);
  assert.is(ran.code, 1);
  assert.is(ran.stdout, '');
  assert.match(
    agent.explainFailure?.(ran.stdout, ran.stderr) ?? '',
    /^--dangerously-skip-permissions cannot be used with root\/sudo privileges for security reasons \(permission mode bypassPermissions as root; the default dontAsk mode runs as root\)$/,
  );
  if (OTHER_USER !== null)
    assert.is((await runInvocation(call, {}, undefined, OTHER_USER)).code, 0, 'another user may bypass');
  assert.is((await runInvocation(call, { IS_SANDBOX: '1' })).code, 0, 'IS_SANDBOX=1 lifts the refusal');
});

create('not logged in: rc 1 and an error result that still reports its cost', async () => {
  const agent = createClaudeAgent();
  const ran = await runInvocation(agent.buildInvocation('x', { role: 'verifier', cwd: '/tmp' }), {
    ANTHROPIC_API_KEY: undefined,
    CLAUDE_CODE_OAUTH_TOKEN: undefined,
    HOME: makeTempDir(),
  });
  assert.is(ran.code, 1);
  assert.is(ran.stderr, '');
  assert.throws(() => agent.parseAnswer(ran.stdout), /^claude reported an error: Not logged in · Please run \/login$/);
  assert.is(agent.explainFailure?.(ran.stdout, ran.stderr), 'Not logged in · Please run /login');
  assert.equal(agent.parseUsage?.(ran.stdout), { model: null, input_tokens: 0, output_tokens: 0, cost_usd: 0 });
});

create('the stand-in refuses what the real CLI refuses: an unknown option, a bad choice, an empty prompt', async () => {
  const unknown = await runInvocation({
    command: 'claude',
    args: ['-p', '--output-format', 'json', '--no-such-flag'],
    stdin: 'x',
  });
  assert.equal([unknown.code, unknown.stderr], [1, "error: unknown option '--no-such-flag'\n"]);
  const choice = await runInvocation({ command: 'claude', args: ['-p', '--permission-mode', 'yolo'], stdin: 'x' });
  assert.is(choice.code, 1);
  assert.match(
    choice.stderr,
    /argument 'yolo' is invalid\. Allowed choices are acceptEdits, auto, bypassPermissions, default, dontAsk, plan\./,
  );
  const empty = await runInvocation(createClaudeAgent().buildInvocation('', { role: 'reviewer', cwd: '/tmp' }));
  assert.is(empty.code, 1);
  assert.is(
    explainClaudeFailure(empty.stdout, empty.stderr),
    'Error: Input must be provided either through stdin or as a prompt argument when using --print',
  );
});

create('structured output with --json-schema lands in json', async () => {
  const agent = createClaudeAgent();
  const call = agent.buildInvocation('x', { role: 'verifier', cwd: '/tmp', answerSchema: { type: 'object' } });
  const ran = await runInvocation(call, { STANDIN_RESULT: '', STANDIN_STRUCTURED: '{"verdict":"PASS","reason":"ok"}' });
  const answer = agent.parseAnswer(ran.stdout);
  assert.equal([answer.text, answer.json], ['', { verdict: 'PASS', reason: 'ok' }]);
});

create('an error result throws naming the subtype; its usage is still read', async () => {
  const agent = createClaudeAgent();
  const ran = await runInvocation(agent.buildInvocation('x', { role: 'verifier', cwd: '/tmp' }), {
    STANDIN_MODE: 'error',
  });
  assert.is(ran.code, 1);
  assert.throws(() => agent.parseAnswer(ran.stdout), /claude reported an error \(error_during_execution\): overloaded/);
  assert.is(agent.explainFailure?.(ran.stdout, ran.stderr), 'overloaded (error_during_execution)');
  assert.equal(agent.parseUsage?.(ran.stdout)?.input_tokens, 1203);
});

create('stream-json needs --verbose; its api_retry events show the CLI retrying', async () => {
  const stream = (extra: string[]) =>
    createClaudeAgent({ extraArgs: extra }).buildInvocation('x', { role: 'reviewer', cwd: '/tmp' });
  const noVerbose = await runInvocation({
    command: 'claude',
    args: ['-p', '--output-format', 'stream-json'],
    stdin: 'x',
  });
  assert.is(noVerbose.code, 1);
  const ok = await runInvocation({ ...stream([]), args: ['-p', '--output-format', 'stream-json', '--verbose'] });
  assert.is(parseClaudeOutput(ok.stdout).text, 'echo:x');
  assert.is(claudeRetrying(ok.stdout), null);
  const retries =
    '{"type":"system","subtype":"init"}\n{"type":"system","subtype":"api_retry","attempt":3,"max_retries":10,"error":"unknown"}\n';
  assert.equal(claudeRetrying(retries), { attempts: 3, message: 'API retry 3 of 10 (error: unknown)' });
  assert.equal(claudeRetrying('{"type":"system","subtype":"api_retry"}'), {
    attempts: 1,
    message: 'API retry 1 (error: unknown)',
  });
  // An overloaded or rate-limiting API is counted: the leaf goes to another vendor rather than wait out three minutes.
  assert.equal(
    claudeRetrying('{"type":"system","subtype":"api_retry","attempt":4,"error_status":529,"error":"overloaded"}'),
    { attempts: 4, message: 'API retry 4 (error: overloaded, HTTP 529)' },
  );
});

create(
  "an authentication failure is final from its first api_retry event; a killed run's last words are its last retry",
  () => {
    // The event Claude Code 2.1.197 prints for a 401 (tests/real-agents sees it from the real CLI).
    const first =
      '{"type":"system","subtype":"init"}\n{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":505.1,"error_status":401,"error":"authentication_failed"}\n';
    assert.equal(claudeRetrying(first), {
      attempts: 1,
      message:
        'API retry 1 of 10 (error: authentication_failed, HTTP 401); a refused key is refused again, so the leaf ends',
      final: true,
    });
    assert.is(
      claudeRetrying('{"type":"system","subtype":"api_retry","attempt":2,"error_status":403,"error":"x"}')?.final,
      true,
    );
    assert.is(
      claudeRetrying('{"type":"system","subtype":"api_retry","attempt":1,"error":"authentication_failed"}')?.final,
      true,
    );
    assert.is(
      claudeRetrying('{"type":"system","subtype":"api_retry","attempt":1,"error_status":500,"error":"api_error"}'),
      null,
      'a 500 is waited out',
    );
    const killed =
      '{"type":"system","subtype":"init"}\n{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"error_status":500,"error":"server_error"}\n';
    assert.is(
      explainClaudeFailure(killed, ''),
      'the last thing Claude Code said: API retry 2 of 10 (error: server_error, HTTP 500)',
    );
    assert.is(explainClaudeFailure('{"type":"system","subtype":"init"}\n', ''), null);
  },
);

create('--json-schema carries the schema without its $schema key (Claude Code ignores a 2020-12 schema)', () => {
  const schema = {
    $id: 'https://leap.dev/schemas/verdict.schema.json',
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    required: ['verdict'],
  };
  const args = createClaudeAgent().buildInvocation('x', { role: 'verifier', cwd: '/tmp', answerSchema: schema }).args;
  const passed = JSON.parse(args[args.indexOf('--json-schema') + 1] as string) as Record<string, unknown>;
  assert.equal(passed, { $id: 'https://leap.dev/schemas/verdict.schema.json', type: 'object', required: ['verdict'] });
  assert.equal(claudeJsonSchema(schema), passed);
  assert.ok('$schema' in schema, "the caller's schema is left as it was");
});

create(
  'its sandbox needs: its config places read-write (CLAUDE_CONFIG_DIR too, as a place of its own when absolute), its own variables',
  () => {
    const needs = createClaudeAgent().sandbox?.({});
    assert.equal(needs, {
      agentPaths: ['.claude', '.claude.json', '.claude.json.backup', '.config/claude'],
      write: [],
      passEnv: ['ANTHROPIC_*', 'CLAUDE_*', 'DISABLE_*'],
    });
    assert.equal(createClaudeAgent().sandbox?.({ CLAUDE_CONFIG_DIR: '/opt/claude-config' })?.write, [
      '/opt/claude-config',
    ]);
    assert.ok(createClaudeAgent().sandbox?.({ CLAUDE_CONFIG_DIR: 'cfg/claude' })?.agentPaths?.includes('cfg/claude'));
  },
);

create.run();

// ---

const parse = suite('parseClaudeOutput');

parse('reads the final JSON object of a stream', () => {
  const text = `${JSON.stringify({ type: 'system' })}\nnoise\n${JSON.stringify({ type: 'result', is_error: false, result: 'done' })}\n`;
  assert.equal(parseClaudeOutput(text), { text: 'done' });
});

parse('reads a pretty-printed single object, ignoring a null structured_output', () => {
  assert.equal(parseClaudeOutput(JSON.stringify({ result: 'a', structured_output: null }, null, 2)), { text: 'a' });
});

parse('refuses output that is not the CLI format', () => {
  assert.throws(() => parseClaudeOutput('plain text'), /expected a JSON object on stdout/);
  assert.throws(() => parseClaudeOutput(''), /expected a JSON object/);
  assert.throws(() => parseClaudeOutput('[1,2]\n{bad'), /expected a JSON object/);
  assert.throws(() => parseClaudeOutput('{"type":"result","result":42}'), /expected a string "result"/);
  assert.throws(() => parseClaudeOutput('{"type":"result"}'), /found "null"/);
  assert.throws(
    () => parseClaudeOutput(`{"is_error":true,"detail":"${'x'.repeat(200)}"}`),
    /claude reported an error: ".*…"/,
  );
});

parse.run();

// ---

const usage = suite('parseClaudeUsage');

usage('sums every model of modelUsage, cached input included; the model is the one that cost the most', () => {
  const result = {
    type: 'result',
    result: 'ok',
    total_cost_usd: 0.25,
    usage: { input_tokens: 1, output_tokens: 1 },
    modelUsage: {
      'claude-haiku-4-5': {
        inputTokens: 100,
        outputTokens: 10,
        cacheReadInputTokens: 0,
        cacheCreationInputTokens: 0,
        costUSD: 0.01,
      },
      'claude-opus-4-8': {
        inputTokens: 50,
        outputTokens: 500,
        cacheReadInputTokens: 1000,
        cacheCreationInputTokens: 20,
        costUSD: 0.24,
      },
      broken: 'not an object',
    },
  };
  assert.equal(parseClaudeUsage(JSON.stringify(result)), {
    model: 'claude-opus-4-8',
    input_tokens: 1170,
    output_tokens: 510,
    cost_usd: 0.25,
  });
  assert.equal(parseClaudeOutput(JSON.stringify(result)).usage?.model, 'claude-opus-4-8');
});

usage('a tie in cost goes to the model that wrote more', () => {
  const models = {
    a: { inputTokens: 1, outputTokens: 1, costUSD: 0 },
    b: { inputTokens: 1, outputTokens: 9, costUSD: 0 },
  };
  assert.is(parseClaudeUsage(JSON.stringify({ modelUsage: models }))?.model, 'b');
});

usage('without modelUsage the usage object counts; what is missing is null, never a guess', () => {
  assert.equal(
    parseClaudeUsage('{"usage":{"input_tokens":7,"cache_read_input_tokens":3,"output_tokens":2},"total_cost_usd":0.5}'),
    { model: null, input_tokens: 10, output_tokens: 2, cost_usd: 0.5 },
  );
  assert.equal(parseClaudeUsage('{"usage":{"output_tokens":2}}'), {
    model: null,
    input_tokens: null,
    output_tokens: 2,
    cost_usd: null,
  });
  assert.equal(parseClaudeUsage('{"total_cost_usd":1}'), {
    model: null,
    input_tokens: null,
    output_tokens: null,
    cost_usd: 1,
  });
  assert.equal(parseClaudeUsage('{"modelUsage":{"m":{"outputTokens":-1}},"total_cost_usd":"free"}'), {
    model: 'm',
    input_tokens: null,
    output_tokens: null,
    cost_usd: null,
  });
  assert.is(parseClaudeUsage('{"type":"result","result":"no usage at all"}'), null);
  assert.is(parseClaudeUsage('not json'), null);
  assert.is(parseClaudeOutput('{"result":"a"}').usage, undefined);
});

usage.run();

// ---

const explain = suite('explainClaudeFailure');

explain('the error result first, else stderr on one line, else nothing', () => {
  assert.is(
    explainClaudeFailure('{"is_error":true,"subtype":"error_max_budget_usd","result":""}', ''),
    `"{\\"is_error\\":true,\\"subtype\\":\\"error_max_budget_usd\\",\\"result\\":\\"\\"}" (error_max_budget_usd)`,
  );
  assert.is(explainClaudeFailure('{"is_error":false,"result":"fine"}', 'first\n\n second \n'), 'first second');
  assert.is(explainClaudeFailure('', '\n'), null);
});

explain.run();
