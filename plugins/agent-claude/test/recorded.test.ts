// The plugin against what the real Claude Code 2.1.197 printed (test/fixtures/recorded): its flags
// against its --help, its parsers against its outputs, the stand-in against its shapes.
import { suite } from 'uvu';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import type { AgentRole } from '@leap/core';
import { cleanupTempDirs, makeTempDir, waitFor } from '@leap/test-utils';
import {
  claudeRanDry,
  claudeRetrying,
  createClaudeAgent,
  explainClaudeFailure,
  parseClaudeOutput,
  parseClaudeUsage,
} from '../src/index.js';
import { recorded, runInvocation } from './helpers.js';

const ROLES: AgentRole[] = ['developer', 'verifier', 'reviewer', 'builder', 'planner'];
const help = recorded('help', 'claude--help.txt');

// Every option the plugin can build, with each role and each config that adds one.
function builtArgs(): string[][] {
  const configs = [{}, { model: 'sonnet' }, { writePermissionMode: 'acceptEdits', allowedTools: ['Edit'] }];
  return configs.flatMap((config) =>
    ROLES.flatMap((role) => [
      createClaudeAgent(config).buildInvocation('p', { role, cwd: '/tmp' }).args,
      createClaudeAgent(config).buildInvocation('p', { role, cwd: '/tmp', answerSchema: { type: 'object' } }).args,
    ]),
  );
}

// The choices --help lists for an option: `(choices: "a", "b")`, over wrapped lines.
function choicesOf(option: string): string[] {
  const at = help.indexOf(`${option} <`);
  const block = help.slice(at, help.indexOf('\n  -', at + 1));
  const listed = /\(choices:([^)]*)\)/.exec(block.replace(/\s+/g, ' '));
  return [...(listed?.[1] ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1] as string);
}

const flags = suite('the flags the plugin builds, against claude --help');

flags('every option appears in the recorded help, and every value of a choice option is one of its choices', () => {
  const seen = new Set<string>();
  for (const args of builtArgs()) {
    for (const [i, arg] of args.entries()) {
      if (!arg.startsWith('-')) continue;
      seen.add(arg);
      assert.match(
        help,
        new RegExp(`(^|[\\s,])${arg.replace(/[-]/g, '\\-')}([\\s,]|$)`, 'm'),
        `${arg} is not in claude --help`,
      );
      const choices = choicesOf(arg);
      if (choices.length > 0)
        assert.ok(
          choices.includes(args[i + 1] as string),
          `${arg} ${args[i + 1]}: expected one of ${choices.join(', ')}`,
        );
    }
  }
  assert.equal([...seen].sort(), [
    '--allowedTools',
    '--disallowedTools',
    '--json-schema',
    '--model',
    '--output-format',
    '--permission-mode',
    '--verbose',
    '-p',
  ]);
  assert.match(help, /--include-partial-messages .*\n.*only works with --print and\n\s+--output-format=stream-json/);
  assert.equal(choicesOf('--permission-mode'), [
    'acceptEdits',
    'auto',
    'bypassPermissions',
    'default',
    'dontAsk',
    'plan',
  ]);
  assert.equal(choicesOf('--output-format'), ['text', 'json', 'stream-json']);
});

flags('the help says dontAsk is a mode and bypassPermissions is what the CLI refuses as root', () => {
  assert.is(
    recorded('claude-developer', 'cmdline').trim(),
    'claude -p --output-format json --permission-mode bypassPermissions',
  );
  assert.is(recorded('claude-developer', 'rc').trim(), '1');
  assert.not.ok(
    builtArgs().some((args) => args.includes('bypassPermissions')),
    'no default builds the mode refused as root',
  );
});

flags.run();

// ---

const outputs = suite('the parsers, against recorded outputs');
outputs.after.each(cleanupTempDirs);

outputs('no credentials: rc 1, an error result that says "Not logged in" with its cost (0), whatever the flags', () => {
  for (const run of [
    'claude-reviewer',
    'claude-reviewer-model-schema',
    'claude-reviewer-claudecode',
    'claude-developer-issandbox',
  ]) {
    const stdout = recorded(run, 'stdout');
    assert.is(recorded(run, 'rc').trim(), '1');
    assert.throws(() => parseClaudeOutput(stdout), /^claude reported an error: Not logged in · Please run \/login$/);
    assert.is(explainClaudeFailure(stdout, recorded(run, 'stderr')), 'Not logged in · Please run /login');
    assert.equal(parseClaudeUsage(stdout), { model: null, input_tokens: 0, output_tokens: 0, cost_usd: 0 });
  }
});

outputs("as root with bypassPermissions, an empty prompt, no network: the CLI's words", () => {
  assert.match(
    explainClaudeFailure(recorded('claude-developer', 'stdout'), recorded('claude-developer', 'stderr')) ?? '',
    /^--dangerously-skip-permissions cannot be used with root\/sudo privileges for security reasons \(/,
  );
  assert.is(parseClaudeUsage(recorded('claude-developer', 'stdout')), null);
  assert.is(
    explainClaudeFailure('', recorded('claude-reviewer-emptystdin', 'stderr')),
    'Error: Input must be provided either through stdin or as a prompt argument when using --print',
  );
  assert.is(
    explainClaudeFailure(recorded('claude-reviewer-fakekey-long', 'stdout'), ''),
    'API Error: Unable to connect to API (FailedToOpenSocket)',
  );
});

outputs('stream-json: api_retry events show the back-off, nine attempts in when it was killed', () => {
  const stdout = recorded('claude-reviewer-fakekey-stream', 'stdout');
  assert.equal(claudeRetrying(stdout), { attempts: 9, message: 'API retry 9 of 10 (error: unknown)' });
  assert.throws(() => parseClaudeOutput(stdout), /expected a string "result"/);
});

// The output up to and including its Nth line: what the retry watch saw when that line was the last.
function firstLines(text: string, count: number): string {
  return `${text.split('\n').slice(0, count).join('\n')}\n`;
}

outputs(
  'a rate limit (429): retried with api_retry events, counted by the watch from its first one, and dry while it retries and once it gave up',
  () => {
    const stdout = recorded('dry-rate-limit', 'stdout');
    assert.is(recorded('dry-rate-limit', 'rc').trim(), '143');
    assert.is(recorded('dry-rate-limit', 'stderr'), '');
    assert.equal(claudeRetrying(firstLines(stdout, 2)), {
      attempts: 1,
      message: 'API retry 1 of 10 (error: rate_limit, HTTP 429)',
    });
    assert.equal(claudeRetrying(stdout), { attempts: 7, message: 'API retry 7 of 10 (error: rate_limit, HTTP 429)' });
    assert.equal(claudeRanDry(stdout, ''), {
      kind: 'rate-limit',
      message: 'API retry 7 of 10 (error: rate_limit, HTTP 429)',
    });
    // Let be, it gives up after ten retries (188 s) with an error result in its words.
    const gaveUp = recorded('dry-rate-limit-gave-up', 'stdout');
    assert.is(recorded('dry-rate-limit-gave-up', 'rc').trim(), '1');
    assert.equal(claudeRanDry(gaveUp, ''), {
      kind: 'rate-limit',
      message: 'API Error: Request rejected (429) · rate limit reached (the stub server says so)',
    });
    assert.is(claudeRetrying(gaveUp), null, 'a result is no retry');
  },
);

outputs(
  'an overload (529): the default model gives up after three tries in its words; another model retries like a rate limit',
  () => {
    const quick = recorded('dry-overload', 'stdout');
    assert.is(recorded('dry-overload', 'rc').trim(), '1');
    const dry = claudeRanDry(quick, recorded('dry-overload', 'stderr'));
    assert.is(dry?.kind, 'overload');
    assert.match(
      dry?.message ?? '',
      /^API Error: Repeated 529 Overloaded errors\. The API is at capacity — this is usually temporary\. Try again in a moment\./,
    );
    assert.is(dry?.message, explainClaudeFailure(quick, ''), "the same words as the failure's");
    const retrying = recorded('dry-overload-retrying', 'stdout');
    assert.match(recorded('dry-overload-retrying', 'cmdline'), / --model sonnet /);
    assert.equal(claudeRetrying(retrying), { attempts: 7, message: 'API retry 7 of 10 (error: overloaded, HTTP 529)' });
    assert.equal(claudeRanDry(retrying, ''), {
      kind: 'overload',
      message: 'API retry 7 of 10 (error: overloaded, HTTP 529)',
    });
  },
);

outputs("a spent credit balance (400): no retry, rc 1 at once, quota in the CLI's words", () => {
  const stdout = recorded('dry-quota', 'stdout');
  assert.is(recorded('dry-quota', 'rc').trim(), '1');
  assert.match(recorded('dry-quota', 'requests'), /^HEAD \/ -> 200\nPOST \/v1\/messages\?beta=true -> 400\n$/);
  assert.equal(claudeRanDry(stdout, ''), { kind: 'quota', message: 'Credit balance is too low' });
  assert.is(claudeRetrying(stdout), null);
  assert.throws(() => parseClaudeOutput(stdout), /^claude reported an error: Credit balance is too low$/);
});

outputs('not dry: no login, no network, a crash, a 401 or a 500 retried, stdout that is not stream-json', () => {
  for (const run of [
    'claude-reviewer',
    'claude-reviewer-fakekey-long',
    'claude-reviewer-fakekey-stream',
    'claude-developer',
    'claude-reviewer-emptystdin',
  ]) {
    assert.is(claudeRanDry(recorded(run, 'stdout'), recorded(run, 'stderr')), null, run);
  }
  const retry = (status: number, error: string) =>
    `{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"error_status":${status},"error":"${error}"}\n`;
  assert.is(claudeRanDry(retry(401, 'authentication_failed'), ''), null, '401');
  assert.is(claudeRanDry(retry(500, 'server_error'), ''), null, '500');
  // A 500 given up on: the result names HTTP 500, and the assistant line says server_error (the words of 2.1.197's messages).
  const gaveUp500 = recorded('dry-overload', 'stdout').replace(
    /Repeated 529 Overloaded errors\. The API is at capacity/g,
    '500 internal server error. This is a server-side issue',
  );
  assert.is(claudeRanDry(gaveUp500, ''), null, 'a 500 result');
  assert.is(claudeRanDry('', ''), null);
  assert.is(claudeRanDry('API Error: Request rejected (429)\n', ''), null, 'not stream-json');
  // A run that recovered from a rate limit and then answered is no failure of its vendor.
  const recovered = `${firstLines(recorded('dry-rate-limit', 'stdout'), 3)}{"type":"result","subtype":"success","is_error":false,"result":"hi"}\n`;
  assert.is(claudeRanDry(recovered, ''), null);
});

outputs('the stand-in answers in the recorded shape: the same fields, the same exit code, the same words', async () => {
  const real = JSON.parse(recorded('claude-reviewer', 'stdout')) as Record<string, unknown>;
  const agent = createClaudeAgent();
  const ran = await runInvocation(agent.buildInvocation('Say hello.', { role: 'reviewer', cwd: '/tmp' }), {
    ANTHROPIC_API_KEY: undefined,
    CLAUDE_CODE_OAUTH_TOKEN: undefined,
    HOME: makeTempDir(),
  });
  const lines = ran.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const standIn = lines.at(-1) as Record<string, unknown>;
  const recordedInit = JSON.parse(
    recorded('claude-reviewer-fakekey-stream', 'stdout').split('\n')[0] as string,
  ) as Record<string, unknown>;
  assert.equal(
    [lines[0]?.type, lines[0]?.subtype],
    [recordedInit.type, recordedInit.subtype],
    'stream-json starts with the init event',
  );
  assert.equal(Object.keys(standIn).sort(), Object.keys(real).sort());
  assert.equal([ran.code, standIn.result, standIn.is_error, standIn.subtype], [1, real.result, true, 'success']);
  const answered = JSON.parse(
    (await runInvocation(agent.buildInvocation('Say hello.', { role: 'reviewer', cwd: '/tmp' }))).stdout
      .trim()
      .split('\n')
      .at(-1) as string,
  ) as Record<string, unknown>;
  assert.equal(Object.keys(answered).sort(), Object.keys(real).sort());
  const root = await runInvocation({
    command: 'claude',
    args: recorded('claude-developer', 'cmdline').trim().split(' ').slice(1),
    stdin: 'Say hello.',
  });
  if (process.getuid?.() === 0)
    assert.equal([root.code, root.stdout, root.stderr], [1, '', recorded('claude-developer', 'stderr')]);
  const empty = await runInvocation({
    command: 'claude',
    args: agent.buildInvocation('', { role: 'reviewer', cwd: '/tmp' }).args,
    stdin: '',
  });
  assert.equal([empty.code, empty.stderr], [1, recorded('claude-reviewer-emptystdin', 'stderr')]);
});

outputs(
  'the stand-in replays a recorded dry run byte for byte (STANDIN_MODE=replay:RUN): its exit code, or, killed, waiting for its TERM',
  async () => {
    const agent = createClaudeAgent();
    const invocation = agent.buildInvocation('Say hello.', { role: 'verifier', cwd: '/tmp' });
    for (const run of ['dry-quota', 'dry-overload']) {
      const ran = await runInvocation(invocation, { STANDIN_MODE: `replay:${run}`, STANDIN_REPLAY_SCALE: '0' });
      assert.equal(
        [ran.code, ran.stdout, ran.stderr],
        [Number(recorded(run, 'rc')), recorded(run, 'stdout'), recorded(run, 'stderr')],
        run,
      );
      assert.is(agent.ranDry?.(ran.stdout, ran.stderr)?.kind, run === 'dry-quota' ? 'quota' : 'overload');
    }
    const standIn = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'claude');
    const child = spawn(standIn, invocation.args, {
      env: { ...process.env, STANDIN_MODE: 'replay:dry-rate-limit', STANDIN_REPLAY_SCALE: '0.01' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    child.stdin.end('Say hello.');
    await waitFor(() => stdout === recorded('dry-rate-limit', 'stdout'), 20_000);
    assert.is(child.exitCode, null, 'still waiting for its next attempt');
    assert.equal(claudeRetrying(stdout)?.attempts, 7);
    child.kill('SIGTERM');
    assert.is(await closed, Number(recorded('dry-rate-limit', 'rc')));
  },
);

outputs.run();
