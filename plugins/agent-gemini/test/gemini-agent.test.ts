import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AgentRole } from '@leap/core';
import { cleanupTempDirs, hostileTitles, makeTempDir } from '@leap/test-utils';
import {
  GEMINI_PROMPT_FLAG_TEXT,
  GEMINI_STDIN_LIMIT_BYTES,
  createGeminiAgent,
  explainGeminiFailure,
  geminiRetrying,
  parseGeminiOutput,
  parseGeminiUsage,
} from '../src/index.js';
import { OTHER_USER, makeWorktree, runInvocation } from './helpers.js';

const ROLES: AgentRole[] = ['developer', 'verifier', 'reviewer', 'builder', 'planner'];

const create = suite('createGeminiAgent');
create.after.each(cleanupTempDirs);

create(
  'names the google family; read-only roles get the default approval mode, every role trusts its folder, the prompt on stdin',
  () => {
    const agent = createGeminiAgent();
    assert.is(agent.name, 'gemini');
    assert.is(agent.family, 'google');
    const call = agent.buildInvocation('the prompt', { role: 'verifier', cwd: '/tmp' });
    assert.is(call.command, 'gemini');
    assert.equal(call.args, [
      '--output-format',
      'json',
      '--approval-mode',
      'default',
      '--skip-trust',
      '-p',
      GEMINI_PROMPT_FLAG_TEXT,
    ]);
    assert.is(call.stdin, 'the prompt');
    assert.is(call.model, undefined);
    assert.is(agent.preflight?.({ role: 'verifier', cwd: '/tmp' }), null);
  },
);

create('writers get yolo; model and extra args are passed', () => {
  const agent = createGeminiAgent({ name: 'gemini-pro', bin: '/opt/gemini', model: 'pro', extraArgs: ['--debug'] });
  const call = agent.buildInvocation('p', { role: 'developer', cwd: '/tmp', model: 'flash' });
  assert.is(agent.name, 'gemini-pro');
  assert.is(call.command, '/opt/gemini');
  assert.is(call.model, 'flash');
  assert.equal(call.args, [
    '--output-format',
    'json',
    '--model',
    'flash',
    '--approval-mode',
    'yolo',
    '--skip-trust',
    '--debug',
    '-p',
    GEMINI_PROMPT_FLAG_TEXT,
  ]);
  assert.equal(agent.buildInvocation('p', { role: 'builder', cwd: '/tmp' }).args.slice(2, 4), ['--model', 'pro']);
});

create('a prompt over the 8 MiB the CLI reads is refused before anything runs', () => {
  const agent = createGeminiAgent();
  assert.ok(agent.buildInvocation('x'.repeat(GEMINI_STDIN_LIMIT_BYTES), { role: 'reviewer', cwd: '/tmp' }).stdin);
  assert.throws(
    () => agent.buildInvocation('é'.repeat(GEMINI_STDIN_LIMIT_BYTES / 2 + 1), { role: 'reviewer', cwd: '/tmp' }),
    /gemini reads at most 8388608 bytes \(8 MiB\) of stdin; this prompt is 8388610 bytes/,
  );
});

create(
  'every role answers in a fresh worktree the CLI never trusted, as this user and another; yolo stays yolo',
  async () => {
    const agent = createGeminiAgent();
    const tree = makeWorktree();
    const titles = hostileTitles(ROLES.length, 5);
    for (const uid of [undefined, OTHER_USER ?? undefined]) {
      for (const [i, role] of ROLES.entries()) {
        const title = titles[i] as string;
        const ran = await runInvocation(agent.buildInvocation(title, { role, cwd: tree }), {}, tree, uid);
        assert.is(ran.code, 0, `${role} as ${uid ?? 'this user'}: ${ran.stderr}`);
        const mode = role === 'developer' || role === 'builder' ? 'yolo' : 'default';
        assert.not.match(ran.stderr, /overridden/);
        const answer = agent.parseAnswer(ran.stdout);
        assert.is(answer.text, `echo:${title}|approval=${mode}`);
        const wrote = Buffer.byteLength(answer.text);
        assert.equal(answer.usage, {
          model: 'gemini-2.5-pro',
          input_tokens: 900 + Buffer.byteLength(title) + 2000,
          output_tokens: 5 + wrote + 40,
          cost_usd: null,
        });
      }
    }
  },
);

create(
  'without --skip-trust the stand-in does what the CLI does: yolo overridden, then rc 55, in its words',
  async () => {
    const call = createGeminiAgent().buildInvocation('x', { role: 'developer', cwd: '/tmp' });
    const ran = await runInvocation({ ...call, args: call.args.filter((a) => a !== '--skip-trust') });
    assert.is(ran.code, 55);
    assert.match(ran.stderr, /Approval mode overridden to "default"/);
    assert.match(
      explainGeminiFailure(ran.stdout, ran.stderr) ?? '',
      /^Gemini CLI is not running in a trusted directory\. To proceed, either use `--skip-trust`.*environments$/,
    );
    const viaEnv = await runInvocation(
      { ...call, args: call.args.filter((a) => a !== '--skip-trust') },
      { GEMINI_CLI_TRUST_WORKSPACE: 'true' },
    );
    assert.is(viaEnv.code, 0);
  },
);

create("no credentials: rc 41, the JSON error on stderr after the notices, read in the CLI's words", async () => {
  const call = createGeminiAgent().buildInvocation('x', { role: 'builder', cwd: '/tmp' });
  const home = makeTempDir();
  const ran = await runInvocation(call, {
    GEMINI_API_KEY: undefined,
    GOOGLE_API_KEY: undefined,
    GOOGLE_GENAI_USE_VERTEXAI: undefined,
    GOOGLE_GENAI_USE_GCA: undefined,
    HOME: home,
  });
  assert.is(ran.code, 41);
  assert.is(ran.stdout, '');
  assert.is(
    explainGeminiFailure(ran.stdout, ran.stderr),
    `Please set an Auth method in your ${home}/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA`,
  );
  assert.is(parseGeminiUsage(ran.stdout), null);
});

create('the stand-in refuses unexpected argv; an API error comes on stderr', async () => {
  const ran = await runInvocation({
    command: 'gemini',
    args: ['--output-format', 'json', '--sandbox-image', 'x'],
    stdin: 'x',
  });
  assert.is(ran.code, 42);
  assert.match(ran.stderr, /Unknown argument: sandbox-image/);
  const bad = await runInvocation({ command: 'gemini', args: ['--approval-mode', 'always', '-p', 'x'], stdin: 'x' });
  assert.is(bad.code, 42);
  const agent = createGeminiAgent();
  const failed = await runInvocation(agent.buildInvocation('x', { role: 'verifier', cwd: '/tmp' }), {
    STANDIN_MODE: 'error',
  });
  assert.is(failed.code, 1);
  assert.is(agent.explainFailure?.(failed.stdout, failed.stderr), '[API Error: You exceeded your current quota]');
  assert.throws(
    () => agent.parseAnswer(failed.stderr),
    /gemini reported an error \(Error\): \[API Error: You exceeded your current quota\]/,
  );
});

create('offline: failed attempts on stderr, counted as retries, then the JSON error', async () => {
  const agent = createGeminiAgent();
  const ran = await runInvocation(agent.buildInvocation('x', { role: 'reviewer', cwd: '/tmp' }), {
    STANDIN_MODE: 'offline',
    STANDIN_RETRY_MS: '5',
    STANDIN_ATTEMPTS: '4',
  });
  assert.is(ran.code, 1);
  assert.is(explainGeminiFailure(ran.stdout, ran.stderr), 'exception TypeError: fetch failed sending request');
  const before = ran.stderr.slice(0, ran.stderr.indexOf('{'));
  assert.equal(geminiRetrying('', before), {
    attempts: 4,
    message: 'Attempt 4 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request',
  });
  assert.is(geminiRetrying('{"response":"x"}', before), null, 'an answer on stdout is no retry');
});

create('its sandbox needs: ~/.gemini read-write, GEMINI_* and GOOGLE_* passed', () => {
  assert.equal(createGeminiAgent().sandbox?.({}), { agentPaths: ['.gemini'], passEnv: ['GEMINI_*', 'GOOGLE_*'] });
});

create.run();

// ---

const parse = suite('parseGeminiOutput');

parse('reads the object after noise; a null error is no error', () => {
  assert.equal(parseGeminiOutput('Loaded cached credentials.\n{bad\n{"response":"ok","error":null}\n'), { text: 'ok' });
  assert.equal(parseGeminiOutput('a warning\n{\n  "response": "pretty",\n  "stats": {"models": {}}\n}\n'), {
    text: 'pretty',
    usage: { model: null, input_tokens: 0, output_tokens: 0, cost_usd: null },
  });
});

parse('throws on other shapes', () => {
  assert.throws(() => parseGeminiOutput('hello'), /expected a JSON object on stdout/);
  assert.throws(() => parseGeminiOutput('[]'), /expected a JSON object/);
  assert.throws(() => parseGeminiOutput('{"stats":{}}'), /expected a string "response", found "null"/);
  assert.throws(() => parseGeminiOutput('{"error":"denied"}'), /gemini reported an error \(error\): "\\"denied\\""/);
  assert.throws(() => parseGeminiOutput(`{"response":1,"x":"${'y'.repeat(200)}"}`), /found "1"/);
  assert.throws(() => parseGeminiOutput(`nope ${'z'.repeat(200)}`), /…"/);
  assert.throws(() => parseGeminiOutput('{\nnot json after all\n'), /expected a JSON object/);
});

parse.run();

// ---

const usage = suite('parseGeminiUsage');

usage('sums every model; a count it does not give makes the sum null; no stats is null', () => {
  const out = (models: unknown) => JSON.stringify({ response: 'r', stats: { models } });
  assert.equal(
    parseGeminiUsage(
      out({
        a: { tokens: { prompt: 10, candidates: 2, thoughts: 3, total: 15 } },
        b: { tokens: { prompt: 1, candidates: 1, total: 2 } },
      }),
    ),
    {
      model: 'a',
      input_tokens: 11,
      output_tokens: 6,
      cost_usd: null,
    },
  );
  assert.equal(parseGeminiUsage(out({ a: { tokens: { prompt: 10 } }, b: 'odd' })), {
    model: 'a',
    input_tokens: null,
    output_tokens: null,
    cost_usd: null,
  });
  assert.equal(parseGeminiUsage(out('none')), { model: null, input_tokens: 0, output_tokens: 0, cost_usd: null });
  assert.is(parseGeminiUsage('{"response":"r"}'), null);
  assert.is(parseGeminiUsage(''), null);
});

usage('prices per million tokens (an agents-file entry) give the answer and the usage an estimated cost', () => {
  const priced = createGeminiAgent({ prices: { input: 0.5, output: 3 } });
  const stdout = JSON.stringify({
    response: 'r',
    stats: { models: { a: { tokens: { prompt: 4000, candidates: 200, thoughts: 50, total: 4250 } } } },
  });
  const expected = {
    model: 'a',
    input_tokens: 4000,
    output_tokens: 250,
    cost_usd: (4000 * 0.5 + 250 * 3) / 1_000_000,
    cost_estimated: true,
  };
  assert.equal(priced.parseAnswer(stdout).usage, expected);
  assert.equal(priced.parseUsage?.(stdout), expected);
  assert.is(priced.parseUsage?.(''), null);
  assert.equal(priced.parseAnswer('{"response":"r"}'), { text: 'r' }, 'no stats, no usage to price');
  assert.is(createGeminiAgent().parseUsage?.(stdout)?.cost_usd, null);
});

usage.run();

// ---

const explain = suite('explainGeminiFailure');

explain('the JSON error of stderr or stdout, else the last line that says something, else nothing', () => {
  assert.is(explainGeminiFailure('{"error":{"message":"on stdout"}}', 'noise'), 'on stdout');
  assert.is(
    explainGeminiFailure(
      '',
      'YOLO mode is enabled. x\n\u001b[31mreal reason\u001b[0m\n    at frame (x.js:1)\n(node:12) Warning\n',
    ),
    'real reason',
  );
  assert.is(explainGeminiFailure('', 'Ripgrep is not available.\n'), null);
  assert.is(
    explainGeminiFailure('', '[API Error: quota]\n{\n  "broken": \n}\n'),
    '[API Error: quota]',
    'a line in brackets is words, a JSON line is not',
  );
  // A rate limit is retried for minutes: counted, so the leaf goes to another vendor; a 500 is waited out.
  assert.equal(geminiRetrying('', 'Attempt 1 failed with status 429. Retrying with backoff... quota\n'), {
    attempts: 1,
    message: 'the Gemini API answered HTTP 429: quota (attempt 1; the CLI was retrying)',
  });
  assert.is(
    geminiRetrying('', 'Attempt 1 failed with status 500. Retrying with backoff... boom\n'),
    null,
    'a 500 is not counted',
  );
  assert.is(geminiRetrying('', 'Error: fetch failed\n'), null, 'no attempt counted yet');
  assert.is(geminiRetrying('', ''), null);
});

explain(
  "an HTTP error of the model API becomes one sentence: the status, its word, the API's message, why the exit code is what it is",
  () => {
    // The end of Gemini CLI 0.61.0's stderr when the API answers 401 (tests/real-agents gets it from the real CLI).
    const body =
      '{"error":{"code":401,"message":"API key not valid. Please pass a valid API key.","status":"UNAUTHENTICATED"}}';
    const stderr = `Ripgrep is not available. Falling back to GrepTool.\nError when talking to Gemini API _ApiError: ${body}\n  status: 401\n}\n${JSON.stringify({ session_id: 's', error: { type: 'Error', message: body, code: 401 } }, null, 2)}\n`;
    const sentence =
      "the Gemini API answered HTTP 401 UNAUTHENTICATED: API key not valid. Please pass a valid API key. (the CLI's exit code 145 is that status mod 256)";
    assert.is(explainGeminiFailure('', stderr), sentence);
    assert.throws(
      () => parseGeminiOutput(JSON.stringify({ error: { type: 'Error', message: body, code: 401 } })),
      (e: Error) => e.message === `gemini reported an error (Error): ${sentence}`,
    );
    // A status with a plain message, a body without words, an exit code that is no HTTP status (41: no auth method).
    assert.is(
      explainGeminiFailure('', JSON.stringify({ error: { type: 'Error', message: 'Too many requests', code: 429 } })),
      "the Gemini API answered HTTP 429: Too many requests (the CLI's exit code 173 is that status mod 256)",
    );
    assert.is(
      explainGeminiFailure('', JSON.stringify({ error: { message: '{"error":{"code":503}}' } })),
      'the Gemini API answered HTTP 503: {"code":503} (the CLI\'s exit code 247 is that status mod 256)',
    );
    assert.is(
      explainGeminiFailure(
        '',
        JSON.stringify({ error: { type: 'Error', message: 'Please set an Auth method', code: 41 } }),
      ),
      'Please set an Auth method',
    );
  },
);

explain(
  'a run ended while the CLI retries: its last attempt as a sentence, not the `status: 500` of the stack dump after it',
  () => {
    // Gemini CLI 0.61.0's stderr while it retries a 500 (tests/real-agents gets it from the real CLI).
    const attempt = (n: number) =>
      `Attempt ${n} failed with status 500. Retrying with backoff... _ApiError: {"error":{"code":500,"message":"internal error","status":"INTERNAL"}}\n    at frame (x.js:1)\n  status: 500\n}\n`;
    assert.is(
      explainGeminiFailure('', `Ripgrep is not available.\n${attempt(1)}${attempt(2)}`),
      'the Gemini API answered HTTP 500 INTERNAL: internal error (attempt 2; the CLI was retrying)',
    );
    assert.is(
      explainGeminiFailure('', 'Attempt 4 failed with status 429. Retrying with backoff... quota exceeded\n'),
      'the Gemini API answered HTTP 429: quota exceeded (attempt 4; the CLI was retrying)',
    );
    assert.is(
      explainGeminiFailure('', 'Attempt 2 failed. Retrying with backoff... TypeError: fetch failed\n'),
      'its attempt 2 failed: TypeError: fetch failed (attempt 2; the CLI was retrying)',
    );
    assert.is(
      explainGeminiFailure('', 'Attempt 2 failed. Retrying with backoff...\n'),
      'its attempt 2 failed (attempt 2; the CLI was retrying)',
    );
  },
);

explain.run();
