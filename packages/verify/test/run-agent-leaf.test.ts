import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createClaudeAgent } from '@leap/agent-claude';
import { createCodexAgent } from '@leap/agent-codex';
import { createCommandAgent } from '@leap/agent-command';
import { createScriptedAgent, movePromptFile } from '@leap/agent-scripted';
import { cleanupTempDirs, hostileTitles, isAlive, makeGitRepo, repoRoot, waitFor } from '@leap/test-utils';
import { runAgentLeaf } from '../src/run-agent-leaf.js';
import { verifyEnv, writeScript } from './helpers.js';

function setup() {
  const repo = makeGitRepo();
  const stateDir = join(repo, '.tdd');
  return { repo, stateDir };
}

const leaf = suite('runAgentLeaf');
leaf.after.each(cleanupTempDirs);

leaf(
  'runs the agent under a supervisor in this process: prompt on stdin, answer parsed, files and events as a launch line leaves',
  async () => {
    const { repo, stateDir } = setup();
    const [prompt] = hostileTitles(1, 21) as [string];
    const script = writeScript([{ answer: { verdict: 'PASS', reason: 'ok' }, stderr: 'thinking\n' }]);
    const agent = createScriptedAgent({ script });
    mkdirSync(stateDir);
    writeFileSync(join(stateDir, 'verify-green.exit'), '1\nstatus=exited\n');
    const result = await runAgentLeaf({
      name: 'verify-green',
      agent,
      prompt,
      options: { role: 'verifier', cwd: repo },
      stateDir,
      env: verifyEnv(),
    });
    assert.is(result.code, 0, result.stderr);
    assert.is(result.status, 'exited');
    assert.equal(result.answer, { text: '{"verdict":"PASS","reason":"ok"}' });
    assert.is(result.failure, null);
    assert.is(result.failureKind, null);
    // A plain answer reports no usage: one usage event all the same, each field null.
    assert.equal(result.usage, { model: null, input_tokens: null, output_tokens: null, cost_usd: null });
    assert.is(readFileSync(movePromptFile(script, 0), 'utf8'), prompt);
    assert.is(readFileSync(join(stateDir, 'verify-green.out'), 'utf8'), '{"verdict":"PASS","reason":"ok"}');
    assert.is(readFileSync(join(stateDir, 'verify-green.err'), 'utf8'), 'thinking\n');
    assert.match(readFileSync(join(stateDir, 'verify-green.exit'), 'utf8'), /^0\nstatus=exited\n/);
    const events = readFileSync(join(stateDir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(
      events.map((e) => [e.event, e.leaf, e.actor ?? null, e.phase ?? null]),
      [
        ['launch', 'verify-green', 'verifier', 'green'],
        ['exit', 'verify-green', null, null],
        ['usage', 'verify-green', null, null],
      ],
    );
    const { ts, ...usage } = events[2] as Record<string, unknown>;
    assert.ok(typeof ts === 'string');
    assert.equal(usage, {
      event: 'usage',
      issue: 3,
      step: null,
      skill_commit: null,
      leaf: 'verify-green',
      agent: 'scripted',
      family: 'scripted',
      model: null,
      input_tokens: null,
      output_tokens: null,
      cost_usd: null,
    });
    assert.is(events[0]?.pid, process.pid);
    // The supervisor's pid file is its single-instance lock: gone once the exit file and event are written.
    assert.not.ok(existsSync(join(stateDir, 'verify-green.pid')));
  },
);

leaf('an agent that cannot start, one that fails, and one whose output is no answer', async () => {
  const { repo, stateDir } = setup();
  const missing = createCommandAgent({ name: 'ghost', command: ['no-such-agent-cli'], family: 'x' });
  const gone = await runAgentLeaf({
    name: 'verify-red',
    agent: missing,
    prompt: 'p',
    options: { role: 'verifier', cwd: repo },
    stateDir,
    env: verifyEnv(),
  });
  assert.is(gone.code, 127);
  assert.is(gone.status, 'failed-start');
  assert.is(gone.failure, 'ghost could not start: no-such-agent-cli was not found (failed-start, code 127)');
  assert.is(gone.failureKind, 'missing');
  assert.is(gone.usage, null);
  const failing = createCommandAgent({
    name: 'sad',
    command: ['bash', '-c', 'echo partial; echo "quota exceeded" >&2; exit 5'],
    family: 'x',
  });
  const failed = await runAgentLeaf({
    name: 'verify-red',
    agent: failing,
    prompt: 'p',
    options: { role: 'verifier', cwd: repo },
    stateDir,
    env: verifyEnv(),
  });
  assert.is(failed.code, 5);
  assert.is(failed.failure, 'sad exited with code 5 (exited): quota exceeded');
  assert.is(failed.failureKind, 'failed');
  assert.is(failed.answer, null);
  assert.is(failed.usage, null, 'a plain agent that failed reported nothing readable');
  const silent = createCommandAgent({ name: 'mute', command: ['true'], family: 'x' });
  const mute = await runAgentLeaf({
    name: 'verify-red',
    agent: silent,
    prompt: 'p',
    options: { role: 'verifier', cwd: repo },
    stateDir,
    env: verifyEnv(),
  });
  assert.is(mute.code, 0);
  assert.is(mute.failure, "could not read mute's answer: the agent printed nothing on stdout");
  assert.is(mute.failureKind, 'answer');
  const usage = readFileSync(join(stateDir, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"usage"'));
  assert.is(usage.length, 0, 'no usage event for leaves whose output could not be read');
});

leaf('a stuck agent is killed by its supervisor at the timeout: code 2, killed-timeout', async () => {
  const { repo, stateDir } = setup();
  const agent = createScriptedAgent({ script: writeScript([{ answer: 'never', hang: true }]) });
  const result = await runAgentLeaf({
    name: 'verify-refactor',
    agent,
    prompt: 'p',
    options: { role: 'verifier', cwd: repo },
    stateDir,
    env: verifyEnv({ VERI_TIMEOUT: '0.5' }),
  });
  assert.is(result.code, 2);
  assert.is(result.status, 'killed-timeout');
  assert.is(result.failure, 'scripted was stopped by its supervisor (killed-timeout)');
  assert.is(result.failureKind, 'killed');
});

leaf('a bad leaf name is refused before anything runs', async () => {
  const { repo, stateDir } = setup();
  const agent = createCommandAgent({ command: ['true'], family: 'x' });
  await runAgentLeaf({
    name: '../x',
    agent,
    prompt: 'p',
    options: { role: 'verifier', cwd: repo },
    stateDir,
    env: verifyEnv(),
  }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /Expected a leaf NAME/),
  );
});

leaf(
  'a leaf NAME held by a live supervisor is refused (failed-start, 125); the holder and its files are left alone',
  async () => {
    const { repo, stateDir } = setup();
    mkdirSync(stateDir);
    const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = holder.pid as number;
      const starttime = readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]?.split(' ')[19];
      writeFileSync(join(stateDir, 'verify-red.pid'), `${pid}\nstarttime=${starttime}\n`);
      writeFileSync(join(stateDir, 'verify-red.out'), "the running leaf's answer so far\n");
      const agent = createCommandAgent({ name: 'second', command: ['true'], family: 'x' });
      const result = await runAgentLeaf({
        name: 'verify-red',
        agent,
        prompt: 'p',
        options: { role: 'verifier', cwd: repo },
        stateDir,
        env: verifyEnv(),
      });
      assert.is(result.code, 125);
      assert.is(result.status, 'failed-start');
      assert.match(
        result.failure ?? '',
        /^second could not be supervised: another supervisor is running leaf "verify-red"/,
      );
      assert.is(result.failureKind, 'failed');
      assert.ok(isAlive(pid));
      assert.match(readFileSync(join(stateDir, 'verify-red.pid'), 'utf8'), new RegExp(`^${pid}\n`));
      // The live run's output is not emptied by the refused launch.
      assert.is(readFileSync(join(stateDir, 'verify-red.out'), 'utf8'), "the running leaf's answer so far\n");
    } finally {
      holder.kill('SIGKILL');
    }
  },
);

leaf('a stale NAME.pid of a dead supervisor is taken over, and a stale NAME.exit replaced', async () => {
  const { repo, stateDir } = setup();
  mkdirSync(stateDir);
  writeFileSync(join(stateDir, 'verify-red.pid'), '999999999\nstarttime=1\n');
  writeFileSync(join(stateDir, 'verify-red.exit'), '7\nstatus=exited\n');
  const agent = createCommandAgent({ name: 'fresh', command: ['bash', '-c', 'cat >/dev/null; exit 3'], family: 'x' });
  const result = await runAgentLeaf({
    name: 'verify-red',
    agent,
    prompt: 'p',
    options: { role: 'verifier', cwd: repo },
    stateDir,
    env: verifyEnv(),
  });
  assert.is(result.code, 3);
  assert.match(readFileSync(join(stateDir, 'verify-red.exit'), 'utf8'), /^3\nstatus=exited\n/);
  assert.not.ok(existsSync(join(stateDir, 'verify-red.pid')));
});

leaf('a TERM to this process ends the running leaf (killed-signal) and not this process', async () => {
  const { repo, stateDir } = setup();
  const agent = createCommandAgent({
    name: 'slow',
    command: ['bash', '-c', 'echo $$ > "$VERI_STATE_DIR/slow.leaf"; exec sleep 30'],
    family: 'x',
  });
  const running = runAgentLeaf({
    name: 'verify-green',
    agent,
    prompt: 'p',
    options: { role: 'verifier', cwd: repo },
    stateDir,
    env: verifyEnv(),
  });
  const leafPidFile = join(stateDir, 'slow.leaf');
  await waitFor(() => existsSync(leafPidFile) && readFileSync(leafPidFile, 'utf8').endsWith('\n'), 10_000);
  const leafPid = Number(readFileSync(leafPidFile, 'utf8'));
  process.kill(process.pid, 'SIGTERM');
  const result = await running;
  assert.is(result.status, 'killed-signal');
  assert.is(result.code, 2);
  assert.is(result.failure, 'slow was stopped by its supervisor (killed-signal)');
  assert.is(result.failureKind, 'killed');
  assert.not.ok(isAlive(leafPid));
  // The handlers went with the supervisor: nothing of it is left listening.
  assert.is(process.listenerCount('SIGTERM'), 0);
});

leaf(
  "a refusal its plugin calls final (an authentication failure) ends the leaf at its first retry, never after the retry limit; a killed leaf keeps the CLI's last words",
  async () => {
    const { repo, stateDir } = setup();
    // A CLI that retries a 401 for ever, one line a try, as Claude Code does for about three minutes.
    const forever = [
      'bash',
      '-c',
      'i=0; while :; do i=$((i+1)); echo "retry $i: 401 invalid x-api-key" >&2; sleep 0.2; done',
    ];
    const base = createCommandAgent({ name: 'keyless', command: forever, family: 'x' });
    const agent = {
      ...base,
      retrying: (_out: string, err: string) => {
        const last = err.trim().split('\n').at(-1) ?? '';
        const m = /^retry (\d+): (.*)$/.exec(last);
        return m === null ? null : { attempts: Number(m[1]), message: m[2] as string, final: true };
      },
    };
    // The retry limit is an hour: only the final mark can end this leaf before the test's own limit.
    const ran = await runAgentLeaf({
      name: 'verify-red',
      agent,
      prompt: 'p',
      options: { role: 'verifier', cwd: repo },
      stateDir,
      env: verifyEnv(),
      retryLimitMs: 3_600_000,
    });
    assert.is(ran.failureKind, 'failed');
    assert.match(
      ran.failure ?? '',
      /^keyless was refused by its service: 401 invalid x-api-key \(the leaf was ended\)$/,
    );
    assert.is(ran.dry, null, 'a plugin without ranDry: no vendor ran dry');
    // Killed by its supervisor (the time limit here): the message says what the CLI said last.
    const slow = createCommandAgent({
      name: 'slow',
      command: ['bash', '-c', 'echo "Reconnecting... 2/5 (stream disconnected)" >&2; exec sleep 60'],
      family: 'x',
    });
    const killed = await runAgentLeaf({
      name: 'verify-green',
      agent: slow,
      prompt: 'p',
      options: { role: 'verifier', cwd: repo },
      stateDir,
      env: verifyEnv({ VERI_TIMEOUT: '1' }),
    });
    assert.is(killed.failureKind, 'killed');
    assert.match(
      killed.failure ?? '',
      /^slow was stopped by its supervisor \(killed-timeout\); the CLI said last: Reconnecting\.\.\. 2\/5 \(stream disconnected\)$/,
    );
  },
);

// A recorded run of a real CLI against the model server's faults (plugins/agent-*/test/fixtures/recorded).
const recordedRun = (plugin: string, run: string, file: string) =>
  join(repoRoot, 'plugins', plugin, 'test', 'fixtures', 'recorded', run, file);

// The plugin's readings of its CLI, with a command that replays a recorded stdout line by line and then waits, as the CLI waits for its next attempt.
function replaying<T extends { buildInvocation: unknown }>(plugin: T, stdout: string, then: 'wait' | number): T {
  const end = then === 'wait' ? 'exec sleep 60' : `exit ${then}`;
  const command = [
    'bash',
    '-c',
    `cat >/dev/null; while IFS= read -r line; do printf '%s\\n' "$line"; sleep 0.05; done < "$REPLAY"; ${end}`,
  ];
  const base = createCommandAgent({ name: 'replay', command, family: 'x', env: { REPLAY: stdout } });
  return { ...plugin, buildInvocation: base.buildInvocation };
}

leaf(
  "a CLI retrying a rate limit is ended after the retry limit (not after its own three minutes): failed, dry in the CLI's words, the failure naming the cause",
  async () => {
    const { repo, stateDir } = setup();
    // Claude Code 2.1.197's api_retry events for a 429, as recorded; its plugin counts them.
    const agent = replaying(createClaudeAgent(), recordedRun('agent-claude', 'dry-rate-limit', 'stdout'), 'wait');
    const ran = await runAgentLeaf({
      name: 'verify-green',
      agent,
      prompt: 'p',
      options: { role: 'verifier', cwd: repo },
      stateDir,
      env: verifyEnv(),
      retryLimitMs: 1,
    });
    assert.is(ran.failureKind, 'failed');
    assert.is(ran.status, 'killed-stuck', 'ended by the watch');
    const attempt = /"attempt":(\d+)[^\n]*\n$/.exec(ran.stdout)?.[1];
    assert.ok(Number(attempt) >= 3, `at least three attempts: ${attempt}`);
    assert.equal(ran.dry, { kind: 'rate-limit', message: `API retry ${attempt} of 10 (error: rate_limit, HTTP 429)` });
    assert.match(
      ran.failure ?? '',
      new RegExp(
        `^claude ran dry \\(rate-limited\\): API retry ${attempt} of 10 \\(error: rate_limit, HTTP 429\\) \\(the leaf was ended after ${attempt} attempts in [\\d.]+ s\\)$`,
      ),
    );
    assert.not.match(ran.failure ?? '', /[{}"]/, 'no stream-json in the failure');
  },
);

leaf(
  'a spent quota is final: the leaf ends at the first retry that says so, even with an hour of retry limit; a CLI that said it and exited is dry too',
  async () => {
    const { repo, stateDir } = setup();
    const forever = [
      'bash',
      '-c',
      'i=0; while :; do i=$((i+1)); echo "retry $i: 429 insufficient_quota" >&2; sleep 0.2; done',
    ];
    const base = createCommandAgent({ name: 'spent', command: forever, family: 'x' });
    const lastRetry = (err: string) => /^retry (\d+): (.*)$/.exec(err.trim().split('\n').at(-1) ?? '');
    const agent = {
      ...base,
      retrying: (_out: string, err: string) => {
        const m = lastRetry(err);
        return m === null
          ? null
          : { attempts: Number(m[1]), message: m[2] as string, final: (m[2] as string).includes('quota') };
      },
      ranDry: (_out: string, err: string) => {
        const m = lastRetry(err);
        return m === null ? null : { kind: 'quota' as const, message: `the vendor said ${m[2]}` };
      },
    };
    const ran = await runAgentLeaf({
      name: 'verify-red',
      agent,
      prompt: 'p',
      options: { role: 'verifier', cwd: repo },
      stateDir,
      env: verifyEnv(),
      retryLimitMs: 3_600_000,
    });
    assert.is(ran.failureKind, 'failed');
    assert.equal(ran.dry, { kind: 'quota', message: 'the vendor said 429 insufficient_quota' });
    assert.is(
      ran.failure,
      'spent ran dry (its quota is spent): the vendor said 429 insufficient_quota (the leaf was ended at its first retry: no retry can help)',
    );
    // Codex CLI 0.171.0 answered a 429 insufficient_quota with a failed turn at once (recorded): exited 1, dry.
    const codex = replaying(
      createCodexAgent({ preflight: false }),
      recordedRun('agent-codex', 'dry-quota', 'stdout'),
      1,
    );
    const exited = await runAgentLeaf({
      name: 'verify-green',
      agent: codex,
      prompt: 'p',
      options: { role: 'verifier', cwd: repo },
      stateDir,
      env: verifyEnv(),
    });
    assert.equal([exited.status, exited.code, exited.failureKind], ['exited', 1, 'failed']);
    assert.equal(exited.dry, { kind: 'quota', message: 'Quota exceeded. Check your plan and billing details.' });
    assert.is(
      exited.failure,
      'codex exited with code 1 (exited): Quota exceeded. Check your plan and billing details.',
    );
  },
);

leaf(
  'not dry: a leaf that failed on a 500, or was killed while it retried a rate limit (its supervisor, not its vendor, ended it)',
  async () => {
    const { repo, stateDir } = setup();
    // Codex CLI 0.171.0's words for a 500 (tests/real-agents/faults.slow.test.ts gets them from the real CLI).
    const said = "We're currently experiencing high demand, which may cause temporary errors.";
    const events = join(repo, '..', 'codex-500.jsonl');
    writeFileSync(
      events,
      `{"type":"turn.started"}\n{"type":"error","message":${JSON.stringify(said)}}\n{"type":"turn.failed","error":{"message":${JSON.stringify(said)}}}\n`,
    );
    const codex = replaying(createCodexAgent({ preflight: false }), events, 1);
    const failed = await runAgentLeaf({
      name: 'verify-green',
      agent: codex,
      prompt: 'p',
      options: { role: 'verifier', cwd: repo },
      stateDir,
      env: verifyEnv(),
    });
    assert.equal([failed.failureKind, failed.failure], ['failed', `codex exited with code 1 (exited): ${said}`]);
    assert.is(failed.dry, null);
    const claude = replaying(createClaudeAgent(), recordedRun('agent-claude', 'dry-rate-limit', 'stdout'), 'wait');
    const killed = await runAgentLeaf({
      name: 'verify-red',
      agent: claude,
      prompt: 'p',
      options: { role: 'verifier', cwd: repo },
      stateDir,
      env: verifyEnv({ VERI_TIMEOUT: '1' }),
      retryLimitMs: 0,
    });
    assert.is(killed.failureKind, 'killed');
    assert.is(killed.dry, null);
  },
);

leaf.run();
