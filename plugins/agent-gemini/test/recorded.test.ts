// The plugin against what the real Gemini CLI 0.61.0 printed (test/fixtures/recorded): its flags against
// its --help, its parsers against its outputs, the stand-in against its shapes and exit codes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AgentRole } from '@leap/core';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import {
  createGeminiAgent,
  explainGeminiFailure,
  geminiRanDry,
  geminiRetrying,
  parseGeminiOutput,
  parseGeminiUsage,
} from '../src/index.js';
import { recorded, runInvocation } from './helpers.js';

const ROLES: AgentRole[] = ['developer', 'verifier', 'reviewer', 'builder', 'planner'];
const help = recorded('help', 'gemini--help.txt');
const AUTH =
  'Please set an Auth method in your <home>/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA';

// The `[choices: "a", "b"]` of an option's help line.
function choicesOf(option: string): string[] {
  const line = help.split('\n').find((l) => new RegExp(`(^|\\s)${option}\\s`).test(l)) ?? '';
  return [...(/\[choices: ([^\]]*)\]/.exec(line)?.[1] ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1] as string);
}

const flags = suite('the flags the plugin builds, against gemini --help');

flags('every option appears in the recorded help, and every value of a choice option is one of its choices', () => {
  const seen = new Set<string>();
  for (const config of [{}, { model: 'gemini-2.5-flash' }]) {
    for (const role of ROLES) {
      const args = createGeminiAgent(config).buildInvocation('p', { role, cwd: '/tmp' }).args;
      for (const [i, arg] of args.entries()) {
        if (!arg.startsWith('-')) continue;
        seen.add(arg);
        assert.match(help, new RegExp(`^\\s+(-\\w, )?${arg}[\\s,]`, 'm'), `${arg} is not in gemini --help`);
        const choices = choicesOf(arg);
        if (choices.length > 0) assert.ok(choices.includes(args[i + 1] as string), `${arg} ${args[i + 1]}`);
      }
    }
  }
  assert.equal([...seen].sort(), ['--approval-mode', '--model', '--output-format', '--skip-trust', '-p']);
  assert.equal(choicesOf('--approval-mode'), ['default', 'auto_edit', 'yolo', 'plan']);
  assert.equal(choicesOf('--output-format'), ['text', 'json', 'stream-json']);
  assert.match(help, /-p, --prompt .*Appended to input on stdin/);
});

flags.run();

// ---

const outputs = suite('the parsers, against recorded outputs');
outputs.after.each(cleanupTempDirs);

outputs(
  'no credentials: rc 41, nothing on stdout, the JSON error on stderr (after the yolo notices for a developer)',
  () => {
    for (const run of ['gemini-reviewer', 'gemini-developer']) {
      assert.is(recorded(run, 'rc').trim(), '41');
      assert.is(recorded(run, 'stdout'), '');
      assert.is(explainGeminiFailure(recorded(run, 'stdout'), recorded(run, 'stderr')), AUTH);
      assert.is(parseGeminiUsage(recorded(run, 'stdout')), null);
      assert.throws(() => parseGeminiOutput(recorded(run, 'stdout')), /expected a JSON object on stdout/);
    }
    assert.match(
      recorded('gemini-developer', 'stderr'),
      /Approval mode overridden to "default" because the current folder is not trusted/,
    );
  },
);

outputs("a folder not trusted: rc 55 in the CLI's words, colours removed", () => {
  assert.is(recorded('gemini-reviewer-fakekey', 'rc').trim(), '55');
  assert.match(
    explainGeminiFailure('', recorded('gemini-reviewer-fakekey', 'stderr')) ?? '',
    /^Gemini CLI is not running in a trusted directory\. To proceed, either use `--skip-trust`, .*#headless-and-automated-environments$/,
  );
});

outputs('no network: retries with stack traces for minutes, counted as retries, then the JSON error last', () => {
  const stderr = recorded('gemini-reviewer-fakekey-skiptrust', 'stderr');
  assert.is(explainGeminiFailure('', stderr), 'exception TypeError: fetch failed sending request');
  const before = stderr.slice(0, stderr.lastIndexOf('\n{'));
  assert.equal(geminiRetrying('', before), {
    attempts: 13,
    message: 'Attempt 9 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request',
  });
  const routing = before.slice(0, before.indexOf('[Routing]') + 200);
  assert.is(geminiRetrying('', routing)?.attempts, 4, 'the router giving up is no progress');
  assert.is(geminiRetrying('', stderr), null, 'once the JSON error is out, the CLI has stopped retrying');
});

// stderr up to the end of the Nth failed attempt's stack dump: what the retry watch saw while the CLI waited for the next one.
function attemptsOf(stderr: string, count: number): string {
  const starts = [...stderr.matchAll(/^Attempt \d+ failed/gm)].map((m) => m.index);
  return starts[count] === undefined ? stderr : stderr.slice(0, starts[count]);
}

outputs(
  'a rate limit (429): retried with a stack dump a try, counted by the watch; dry while it retries and once it gave up (ten tries, 237 s, rc 173)',
  () => {
    const stderr = recorded('dry-rate-limit', 'stderr');
    assert.is(recorded('dry-rate-limit', 'stdout'), '');
    const words = 'the Gemini API answered HTTP 429 RESOURCE_EXHAUSTED: rate limit reached (the stub server says so)';
    assert.equal(geminiRetrying('', attemptsOf(stderr, 1)), {
      attempts: 1,
      message: `${words} (attempt 1; the CLI was retrying)`,
    });
    assert.equal(geminiRetrying('', stderr), { attempts: 4, message: `${words} (attempt 4; the CLI was retrying)` });
    assert.equal(geminiRanDry('', stderr), {
      kind: 'rate-limit',
      message: `${words} (attempt 4; the CLI was retrying)`,
    });
    const gaveUp = recorded('dry-rate-limit-gave-up', 'stderr');
    assert.is(recorded('dry-rate-limit-gave-up', 'rc').trim(), '173');
    assert.is(geminiRetrying('', gaveUp), null, 'once the JSON error is out, the CLI has stopped retrying');
    assert.equal(geminiRanDry('', gaveUp), {
      kind: 'rate-limit',
      message:
        "the Gemini API answered HTTP 429: rate limit reached (the stub server says so) (the CLI's exit code 173 is that status mod 256)",
    });
  },
);

outputs('an overload (503): retried the same way; given up after ten tries in 200 s with rc 247', () => {
  const stderr = recorded('dry-overload', 'stderr');
  assert.equal(geminiRetrying('', stderr), {
    attempts: 3,
    message:
      'the Gemini API answered HTTP 503 UNAVAILABLE: overloaded (the stub server says so) (attempt 3; the CLI was retrying)',
  });
  assert.is(geminiRanDry('', stderr)?.kind, 'overload');
  assert.is(recorded('dry-overload-gave-up', 'rc').trim(), '247');
  assert.equal(geminiRanDry('', recorded('dry-overload-gave-up', 'stderr')), {
    kind: 'overload',
    message:
      "the Gemini API answered HTTP 503: overloaded (the stub server says so) (the CLI's exit code 247 is that status mod 256)",
  });
});

outputs('a spent daily quota (429 with a per-day QuotaFailure): no retry, TerminalQuotaError, rc 173 at once', () => {
  const stderr = recorded('dry-quota', 'stderr');
  assert.is(recorded('dry-quota', 'rc').trim(), '173');
  assert.match(recorded('dry-quota', 'requests'), /:streamGenerateContent\?alt=sse -> 429\n$/);
  assert.match(
    stderr,
    /^Error when talking to Gemini API .* TerminalQuotaError: You have exhausted your daily quota on this model\.$/m,
  );
  const words =
    "the Gemini API answered HTTP 429: You have exhausted your daily quota on this model. (the CLI's exit code 173 is that status mod 256)";
  assert.equal(geminiRanDry('', stderr), { kind: 'quota', message: words });
  assert.is(explainGeminiFailure('', stderr), words, "the failure's words");
  assert.is(geminiRetrying('', stderr), null);
});

outputs('not dry: no login, an untrusted folder, no network, a 401 or a 500 (retried or given up)', () => {
  for (const run of [
    'gemini-reviewer',
    'gemini-developer',
    'gemini-reviewer-fakekey',
    'gemini-reviewer-fakekey-skiptrust',
  ]) {
    assert.is(geminiRanDry(recorded(run, 'stdout'), recorded(run, 'stderr')), null, run);
  }
  // The same dumps with the status the CLI prints for a 500 and a 401 (tests/real-agents/faults.slow.test.ts gets them from the real CLI).
  const as500 = recorded('dry-overload', 'stderr')
    .replace(/503/g, '500')
    .replace(/UNAVAILABLE/g, 'INTERNAL');
  assert.is(geminiRanDry('', as500), null, 'a 500 retried');
  assert.is(geminiRetrying('', as500), null, 'a 500 is waited out');
  assert.is(
    geminiRanDry('', recorded('dry-overload-gave-up', 'stderr').replace(/503/g, '500')),
    null,
    'a 500 given up',
  );
  const refused =
    '{\n  "error": {\n    "type": "Error",\n    "message": "{\\"error\\":{\\"code\\":401,\\"message\\":\\"invalid x-api-key\\",\\"status\\":\\"UNAUTHENTICATED\\"}}",\n    "code": 401\n  }\n}\n';
  assert.is(
    explainGeminiFailure('', refused),
    "the Gemini API answered HTTP 401 UNAUTHENTICATED: invalid x-api-key (the CLI's exit code 145 is that status mod 256)",
  );
  assert.is(geminiRanDry('', refused), null, '401');
  assert.is(geminiRanDry('', ''), null);
});

outputs(
  'the stand-in answers as the recorded CLI: the same refusal as an untrusted folder, the same error shape',
  async () => {
    const cmd = recorded('gemini-reviewer-fakekey', 'cmdline').trim();
    const call = createGeminiAgent().buildInvocation('Say hello.', { role: 'reviewer', cwd: '/tmp' });
    assert.is(
      cmd,
      `env GEMINI_API_KEY=fake-key-for-offline-test gemini ${call.args
        .filter((a) => a !== '--skip-trust')
        .map((a) => (a.includes(' ') ? a.replace(/ /g, '\\ ') : a))
        .join(' ')}`,
    );
    const untrusted = await runInvocation({ ...call, args: call.args.filter((a) => a !== '--skip-trust') });
    assert.equal(
      [untrusted.code, untrusted.stdout, untrusted.stderr],
      [55, '', recorded('gemini-reviewer-fakekey', 'stderr')],
    );
    const home = makeTempDir();
    const dev = createGeminiAgent().buildInvocation('Say hello.', { role: 'developer', cwd: '/tmp' });
    const noAuth = await runInvocation(
      { ...dev, args: dev.args.filter((a) => a !== '--skip-trust') },
      { GEMINI_API_KEY: undefined, HOME: home },
    );
    const strip = (text: string) => text.replace(/"session_id": "[^"]+"/, '"session_id": "S"');
    assert.is(noAuth.code, 41);
    assert.is(strip(noAuth.stderr).replace(home, '<home>'), strip(recorded('gemini-developer', 'stderr')));
  },
);

outputs(
  'the stand-in replays a recorded dry run byte for byte (STANDIN_MODE=replay:RUN), with its exit code',
  async () => {
    const agent = createGeminiAgent();
    const invocation = agent.buildInvocation('Say hello.', { role: 'verifier', cwd: '/tmp' });
    for (const [run, kind] of [
      ['dry-quota', 'quota'],
      ['dry-rate-limit-gave-up', 'rate-limit'],
      ['dry-overload-gave-up', 'overload'],
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

outputs.run();
