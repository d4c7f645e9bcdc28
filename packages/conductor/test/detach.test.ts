// `leap tdd run --detach` with real processes: the run outlives a SIGKILL of its caller's whole process group and
// finishes, `leap tdd status` sees it; a second start while it runs is refused naming it; a run that fails at once
// is reported with its own error and code; every argument arrives byte for byte.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, fromHarness, isAlive, makeTempDir, repoRoot, runBin, waitFor } from '@leap/test-utils';
import {
  TEST_CMD,
  cleanEnv,
  commandAgents,
  makeProject,
  readLog,
  repoFingerprint,
  slugSteps,
  subjects,
} from './helpers.js';

const LEAP = join(repoRoot, 'packages/cli/dist/bin/leap.cjs');
const TITLES = ['First $step', 'Second `step`'];
const detach = suite('leap tdd run --detach');
detach.after.each(cleanupTempDirs);

// A test command and a plan path full of what a shell would take apart: $, backticks, quotes, a newline, non-ASCII.
const HOSTILE_CMD = `${TEST_CMD} # '$HOME' \`id\` "q" é\n# l2`;

function hostilePlan(): string {
  const dir = join(makeTempDir('leap-detach-'), 'plan $HOME `id` \'q\' "é"\nline');
  mkdirSync(dir);
  const file = join(dir, 'plan.txt');
  writeFileSync(file, `Plan\n${TITLES.map((t, i) => `${t} (criterion ${i + 1})`).join('\n')}\n`);
  return file;
}

function project(sleepMs: number) {
  const repo = makeProject(['one', 'two']);
  const agents = commandAgents(slugSteps(TITLES));
  const args = [
    'tdd',
    'run',
    '--issue',
    '1',
    '--test-cmd',
    HOSTILE_CMD,
    '--plan',
    hostilePlan(),
    '--developer',
    'dev',
    '--verifier',
    'ver',
    '--agents',
    agents.file,
  ];
  return {
    repo,
    agents,
    args,
    env: cleanEnv({ DEV_SLEEP_MS: String(sleepMs) }),
    dir: join(repo, '.tdd/detached/issue-1'),
  };
}

detach(
  "the run outlives a SIGKILL of the caller's whole process group, finishes, and leap tdd status sees it",
  async () => {
    // Every developer leaf sleeps until the test's cue (fixtures/dev-agent.mjs): the run outlives the harness.
    const p = project(120_000);
    const harness = await fromHarness([process.execPath, LEAP, ...p.args, '--detach'], p.repo, p.env);
    try {
      assert.is(harness.code, 0, harness.out);
      const line =
        /^issue 1: run started detached, pid (\d+) \(supervisor (\d+)\); poll: leap tdd status --issue 1; output: (.+) and (.+)\n$/.exec(
          harness.out,
        );
      assert.ok(line !== null, harness.out);
      const pid = Number(line?.[1]);
      assert.equal([line?.[3], line?.[4]], [join(p.dir, 'run.out'), join(p.dir, 'run.err')]);
      // The harness ends the call: every process of the caller's group is killed.
      process.kill(-harness.group, 'SIGKILL');
      await waitFor(() => !isAlive(harness.group), 5000, 'the harness gone');
      assert.ok(isAlive(pid), 'the run lives on');
      const status = await runBin(LEAP, ['tdd', 'status', '--issue', '1', '--json'], { cwd: p.repo, env: p.env });
      const conductor = (JSON.parse(status.stdout) as { conductor: { pid: number } | null }).conductor;
      assert.is(conductor?.pid, pid, status.stdout);
    } finally {
      writeFileSync(join(p.agents.dir, 'go'), '');
    }
    const exit = join(p.dir, 'run.exit');
    await waitFor(() => existsSync(exit), 120_000, 'the detached run ends');
    assert.is(readFileSync(exit, 'utf8').split('\n')[0], '0', readFileSync(join(p.dir, 'run.err'), 'utf8'));
    assert.match(readFileSync(join(p.dir, 'run.out'), 'utf8'), 'done: 2 steps of issue 1');
    assert.is(subjects(p.repo).length, 7);
    const after = await runBin(LEAP, ['tdd', 'status', '--issue', '1', '--json'], { cwd: p.repo, env: p.env });
    assert.equal((JSON.parse(after.stdout) as { conductor: unknown; steps: unknown[] }).conductor, null);
    // Byte for byte, and the run's own environment: the user's time limit for its leaves, not the supervisor's none.
    const launches = readLog(p.agents.devLog);
    assert.ok(launches.length >= 6);
    for (const l of launches) {
      assert.is(l.env.VERI_TEST_CMD, HOSTILE_CMD);
      assert.is(l.env.VERI_TIMEOUT, '60');
      assert.equal(
        [l.env.VERI_STATE_DIR, l.env.VERI_IDLE_TIMEOUT],
        [join(p.repo, '.tdd'), '300s'],
        "the run's state folder and idle limit, not its supervisor's",
      );
    }
  },
);

detach(
  'a second --detach while one runs is refused (exit 2) naming the running one; a stop ends the first as usual',
  async () => {
    const p = project(3000);
    const first = await runBin(LEAP, [...p.args, '--detach', '--json'], { cwd: p.repo, env: p.env });
    assert.is(first.code, 0, first.stderr);
    const started = JSON.parse(first.stdout) as {
      pid: number;
      supervisor: number;
      issue: number;
      status: string;
      out: string;
      err: string;
      wait: string;
    };
    assert.equal(
      [started.issue, started.status, started.out, started.wait],
      [1, 'leap tdd status --issue 1', join(p.dir, 'run.out'), `VERI_STATE_DIR=${p.dir} leap-wait run`],
    );
    const before = readFileSync(join(p.dir, 'run.out'));
    const second = await runBin(LEAP, [...p.args, '--detach'], { cwd: p.repo, env: p.env });
    assert.is(second.code, 2, second.stderr);
    assert.match(second.stderr, `another conductor is running issue 1 (pid ${started.pid}`);
    assert.is(second.stdout, '');
    assert.equal(readFileSync(join(p.dir, 'run.out')), before, "the running one's output untouched");
    const plain = await runBin(LEAP, p.args, { cwd: p.repo, env: p.env });
    assert.is(plain.code, 2, 'a run without --detach is refused the same');
    const stop = await runBin(LEAP, ['tdd', 'stop', 'now'], { cwd: p.repo, env: p.env });
    assert.is(stop.code, 0);
    // leap-wait on the detached run answers with the run's own code: 3, stopped.
    const waited = await runBin(join(repoRoot, 'packages/supervise/bin/leap-wait.cjs'), ['run', '120'], {
      cwd: p.repo,
      env: { ...p.env, VERI_STATE_DIR: p.dir },
    });
    assert.is(waited.code, 3, waited.stderr);
    assert.match(readFileSync(join(p.dir, 'run.out'), 'utf8'), 'stopped');
  },
);

detach(
  'a run that fails at once after forking is reported with its own error and code, and leaves nothing',
  async () => {
    const p = project(0);
    const before = repoFingerprint(p.repo);
    const bad = await runBin(LEAP, ['tdd', 'run', '--issue', '1', '--developer', 'nosuch', '--detach'], {
      cwd: p.repo,
      env: p.env,
    });
    assert.is(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, 'unknown agent "nosuch"');
    assert.not.match(bad.stderr, 'supervise[run]');
    assert.is(repoFingerprint(p.repo), before, 'nothing touched');
    const noIssue = await runBin(LEAP, ['tdd', 'run', '--detach'], { cwd: p.repo, env: p.env });
    assert.equal(
      [noIssue.code, /expected --issue N/.test(noIssue.stderr)],
      [2, true],
      'bad arguments: refused before forking',
    );
  },
);

detach.run();
