// The plugin against what the real Codex CLI 0.171.0 printed (test/fixtures/recorded): its flags against
// its --help, its parsers against its outputs, the stand-in against its events.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import type { AgentRole } from '@leap/core';
import { cleanupTempDirs, makeTempDir, waitFor } from '@leap/test-utils';
import {
  codexRanDry,
  codexRetrying,
  createCodexAgent,
  explainCodexFailure,
  parseCodexEvents,
  parseCodexUsage,
} from '../src/index.js';
import { fixtures, recorded, runInvocation } from './helpers.js';

const ROLES: AgentRole[] = ['developer', 'verifier', 'reviewer', 'builder', 'planner'];
const execHelp = recorded('help', 'codex-exec--help.txt');
const topHelp = recorded('help', 'codex--help.txt');
const NULL_USAGE = { model: null, input_tokens: null, output_tokens: null, cost_usd: null };

// The `[possible values: ...]` of an option in the exec help.
function possibleValues(option: string): string[] {
  const at = execHelp.indexOf(`${option} <`);
  const listed = /\[possible values: ([^\]]*)\]/.exec(execHelp.slice(at, execHelp.indexOf('\n  -', at + 1)));
  return (listed?.[1] ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

const flags = suite('the flags the plugin builds, against codex --help and codex exec --help');

flags('every option of exec appears in the exec help, with a listed value; `login` is a command', () => {
  const seen = new Set<string>();
  for (const config of [{}, { model: 'gpt-5' }]) {
    for (const role of ROLES) {
      const args = createCodexAgent(config).buildInvocation('p', { role, cwd: '/tmp' }).args;
      assert.is(args[0], 'exec');
      assert.is(args.at(-1), '-', 'the prompt from stdin, as the help says `-` does');
      for (const [i, arg] of args.entries()) {
        if (!arg.startsWith('--')) continue;
        seen.add(arg);
        assert.match(execHelp, new RegExp(`^\\s+(-\\w, )?${arg}( |$)`, 'm'), `${arg} is not in codex exec --help`);
        const values = possibleValues(arg);
        if (values.length > 0) assert.ok(values.includes(args[i + 1] as string), `${arg} ${args[i + 1]}`);
      }
    }
  }
  assert.equal([...seen].sort(), ['--json', '--model', '--sandbox', '--skip-git-repo-check']);
  assert.equal(possibleValues('--sandbox'), ['read-only', 'workspace-write', 'danger-full-access']);
  assert.match(execHelp, /instructions are read from stdin/);
  // The readiness check falls back on `codex login status`.
  assert.match(
    createCodexAgent().preflight?.({ role: 'reviewer', cwd: '/tmp' })?.env?.LEAP_CODEX_READINESS ?? '',
    /\['login', 'status'\]/,
  );
  assert.match(topHelp, /^\s+login\s+Manage login$/m);
});

flags.run();

// ---

const outputs = suite('the parsers, against recorded outputs');
outputs.after.each(cleanupTempDirs);

outputs(
  'no credentials: exec never fails, it retries; Reconnecting events are retries, not an answer, and no usage',
  () => {
    for (const run of ['codex-reviewer', 'codex-developer', 'codex-reviewer-long']) {
      const stdout = recorded(run, 'stdout');
      assert.is(recorded(run, 'rc').trim(), '124', "killed by the recording's time limit");
      const reconnects = stdout.split('\n').filter((l) => l.includes('"Reconnecting')).length;
      assert.equal(codexRetrying(stdout), {
        attempts: reconnects,
        message: 'Reconnecting... waiting for network (Connection failed: error sending request)',
      });
      assert.throws(() => parseCodexEvents(stdout), /^codex reported an error: Reconnecting\.\.\. waiting for network/);
      assert.is(
        explainCodexFailure(stdout, recorded(run, 'stderr')),
        'Reconnecting... waiting for network (Connection failed: error sending request)',
      );
      assert.equal(parseCodexUsage(stdout), NULL_USAGE);
    }
  },
);

outputs("a run that recovered from a blip answers, with its usage; outside git, the CLI's words", () => {
  const stdout = recorded('synthetic-codex-recovered', 'stdout');
  assert.equal(parseCodexEvents(stdout), {
    text: 'hello',
    usage: { model: null, input_tokens: 10, output_tokens: 2, cost_usd: null },
  });
  assert.is(codexRetrying(stdout), null);
  assert.is(
    explainCodexFailure('', recorded('codex-reviewer-nogit', 'stderr')),
    'Not inside a trusted directory and --skip-git-repo-check was not specified.',
  );
  assert.is(parseCodexUsage(''), null);
});

// The output up to and including its Nth line: what the retry watch saw when that line was the last.
function firstLines(text: string, count: number): string {
  return `${text.split('\n').slice(0, count).join('\n')}\n`;
}

outputs(
  'a rate limit (429): five Reconnecting retries in about 5 s, then a failed turn; dry while it retries and once it failed',
  () => {
    const stdout = recorded('dry-rate-limit', 'stdout');
    assert.is(recorded('dry-rate-limit', 'rc').trim(), '1');
    const words = 'exceeded retry limit, last status: 429 Too Many Requests';
    assert.equal(codexRanDry(stdout, recorded('dry-rate-limit', 'stderr')), { kind: 'rate-limit', message: words });
    assert.is(explainCodexFailure(stdout, ''), words, "the failure's words");
    const retrying = firstLines(stdout, 5);
    assert.equal(codexRetrying(retrying), { attempts: 3, message: `Reconnecting... 3/5 (${words})` });
    assert.equal(codexRanDry(retrying, ''), { kind: 'rate-limit', message: `Reconnecting... 3/5 (${words})` });
    assert.is(recorded('dry-rate-limit', 'requests').match(/-> 429/g)?.length, 6);
  },
);

outputs('an overload (503): five retries in about 30 s, then "Selected model is at capacity"', () => {
  const stdout = recorded('dry-overload', 'stdout');
  const words = 'Selected model is at capacity. Please try a different model.';
  assert.equal(codexRanDry(stdout, ''), { kind: 'overload', message: words });
  assert.equal(codexRetrying(firstLines(stdout, 4)), { attempts: 2, message: `Reconnecting... 2/5 (${words})` });
  assert.equal(codexRanDry(firstLines(stdout, 4), '')?.kind, 'overload');
});

outputs(
  'a spent quota (429 insufficient_quota): no retry, the turn fails at once; final if a retry ever said so',
  () => {
    const stdout = recorded('dry-quota', 'stdout');
    assert.is(recorded('dry-quota', 'rc').trim(), '1');
    assert.match(recorded('dry-quota', 'requests'), /^POST \/v1\/responses -> 429\n$/);
    assert.equal(codexRanDry(stdout, ''), {
      kind: 'quota',
      message: 'Quota exceeded. Check your plan and billing details.',
    });
    assert.is(codexRetrying(stdout), null);
    assert.is(
      codexRetrying(
        '{"type":"error","message":"Reconnecting... 1/5 (Quota exceeded. Check your plan and billing details.)"}',
      )?.final,
      true,
    );
  },
);

outputs(
  'not dry: no login (retrying the network), a 401, a 500 worded as "high demand", outside git, a recovered blip',
  () => {
    for (const run of [
      'codex-reviewer',
      'codex-reviewer-long',
      'codex-reviewer-nogit',
      'synthetic-codex-recovered',
      'codex-developer',
    ]) {
      assert.is(
        codexRanDry(recorded(run, 'stdout'), run === 'synthetic-codex-recovered' ? '' : recorded(run, 'stderr')),
        null,
        run,
      );
    }
    // The words 0.171.0 prints for a 401 and for a 500 (tests/real-agents/faults.slow.test.ts gets them from the real CLI).
    const failed = (message: string) =>
      `{"type":"turn.started"}\n{"type":"error","message":${JSON.stringify(message)}}\n{"type":"turn.failed","error":{"message":${JSON.stringify(message)}}}\n`;
    assert.is(
      codexRanDry(
        failed('unexpected status 401 Unauthorized: invalid x-api-key, url: http://127.0.0.1:42903/v1/responses'),
        '',
      ),
      null,
      '401',
    );
    assert.is(
      codexRanDry(failed("We're currently experiencing high demand, which may cause temporary errors."), ''),
      null,
      '500',
    );
    assert.is(codexRanDry('', ''), null);
  },
);

outputs(
  'the stand-in prints the recorded events when it cannot reach its service, and the recorded refusal outside git',
  async () => {
    const call = createCodexAgent().buildInvocation('Say hello.', { role: 'reviewer', cwd: '/tmp' });
    const child = spawn(call.command, call.args, {
      env: { ...process.env, PATH: `${fixtures}:${process.env.PATH ?? ''}`, CODEX_HOME: makeTempDir() },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    child.stdin.end(call.stdin);
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    await waitFor(() => out.split('\n').length > 8, 60_000);
    child.kill('SIGKILL');
    const lines = out.split('\n').slice(0, 8);
    assert.equal(lines, recorded('codex-reviewer', 'stdout').split('\n').slice(0, 8));
    const nogit = recorded('codex-reviewer-nogit', 'cmdline').trim().split(' ');
    const dir = makeTempDir();
    const refused = await runInvocation({ command: 'codex', args: nogit.slice(1), stdin: 'Say hello.' }, {}, dir);
    assert.equal(
      [refused.code, refused.stdout, refused.stderr.trim().split('\n').at(-1)],
      [1, '', recorded('codex-reviewer-nogit', 'stderr').trim().split('\n').at(-1)],
    );
  },
);

outputs(
  'the stand-in replays a recorded dry run byte for byte (STANDIN_MODE=replay:RUN), with its exit code',
  async () => {
    const agent = createCodexAgent();
    const invocation = agent.buildInvocation('Say hello.', { role: 'verifier', cwd: makeTempDir() });
    for (const [run, kind] of [
      ['dry-quota', 'quota'],
      ['dry-rate-limit', 'rate-limit'],
      ['dry-overload', 'overload'],
    ] as const) {
      const ran = await runInvocation(invocation, { STANDIN_MODE: `replay:${run}`, STANDIN_REPLAY_SCALE: '0' });
      assert.equal(
        [ran.code, ran.stdout, ran.stderr],
        [Number(recorded(run, 'rc')), recorded(run, 'stdout'), recorded(run, 'stderr')],
        run,
      );
      assert.is(agent.ranDry?.(ran.stdout, ran.stderr)?.kind, kind, run);
    }
  },
);

outputs(
  'a run whose own sandbox could not start is broken though it exited 0 (the recorded warning of Codex CLI 0.171.0); not with danger-full-access, not without the warning',
  () => {
    const stderr = recorded('codex-developer', 'stderr');
    assert.match(stderr, 'Refusing to create helper binaries under temporary dir', 'the recording holds the warning');
    const agent = createCodexAgent();
    const writer = agent.buildInvocation('p', { role: 'developer', cwd: '/r' });
    const reader = agent.buildInvocation('p', { role: 'verifier', cwd: '/r' });
    const inside = agent.buildInvocation('p', { role: 'developer', cwd: '/r', sandboxed: true });
    assert.match(
      agent.brokenRun?.('', stderr, writer) ?? '',
      /^codex could not run its own workspace-write sandbox \(it said: Refusing to create helper binaries under temporary dir "<tmp>"/,
    );
    assert.match(agent.brokenRun?.('', stderr, reader) ?? '', /^codex could not run its own read-only sandbox/);
    assert.match(
      agent.brokenRun?.('', stderr, writer) ?? '',
      /so every command the model ran failed though the run exited 0; give CODEX_HOME a folder outside the temporary folder/,
    );
    assert.is(agent.brokenRun?.('', stderr, inside), null, 'inside the toolchain sandbox codex runs none of its own');
    assert.is(agent.brokenRun?.('', 'WARNING: something else\n', writer), null);
    // The words only count on stderr, where the CLI prints them: a model's answer that quotes them is an answer.
    assert.is(
      agent.brokenRun?.(
        '{"type":"item.completed","item":{"type":"agent_message","text":"Refusing to create helper binaries under temporary dir"}}',
        '',
        writer,
      ),
      null,
    );
  },
);

outputs.run();
