// leap worker's labels and its --max-leaf, and the priorities of slices: which worker takes which round, when.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import {
  beatEnv,
  gateFile,
  here,
  openGate,
  readLeap,
  runQueued,
  setupRemote,
  spawnLeap,
  spawnWorker,
  startRedis,
  stopAll,
  TWO_BALLS_BASE,
  twoBalls,
  until,
  workersView,
} from './helpers.js';

const env = beatEnv;

/** The agents file of `twoBalls` plus agent z of a family (fz) no round asks for. */
function withOtherFamily(agents: string): string {
  const data = JSON.parse(readFileSync(agents, 'utf8')) as { agents: Record<string, unknown> };
  data.agents.z = { plugin: 'command', family: 'fz', command: [process.execPath, join(here, 'fixtures', 'leap.ts')] };
  writeFileSync(agents, JSON.stringify(data, null, 2));
  return agents;
}

const test = suite('leap workers: labels, --max-leaf, priorities');
test.after.each(cleanupTempDirs);

test('labels: a worker labelled for another family never builds the round (handed back, no attempt spent); one with the round families builds it', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(TWO_BALLS_BASE);
  const { file, agents } = twoBalls(dir, 'labels', {});
  withOtherFamily(agents);
  const other = spawnWorker(redis.url, remote, 'other', ['--agents', agents, '--label', 'fz'], env());
  let able: ReturnType<typeof spawnWorker> | null = null;
  try {
    await other.waitFor(/waiting for rounds/);
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents, { jobs: 2, env: env() });
    await other.waitFor(
      /labels\/x round 1: not for this worker \(it needs the families f1, f2, fb; this worker's labels: fz\); handed back, no attempt spent/,
    );
    await other.waitFor(/labels\/y round 1: not for this worker/);
    able = spawnWorker(
      redis.url,
      remote,
      'able',
      ['--agents', agents, '--label', 'fb', '--label', 'f1', '--label', 'f2', '--label', 'fz'],
      env(),
    );
    const summary = await running;
    assert.is(summary.receipt, 1, `${lines.join('\n')}\n${other.err()}\n${able.err()}`);
    assert.equal(
      ['x', 'y'].map((id) => readLeap<{ worker: string }>(repo, 'labels', id, 'round-1.json')?.worker),
      ['able', 'able'],
    );
    assert.not.match(other.err(), /: taken/);
    assert.match(able.err(), /labels\/x round 1: taken \(job [^)]*\)/);
    assert.not.match(able.err(), /labels\/x round 1: taken \(job [^)]*again/);
  } finally {
    await stopAll(redis, other, able);
  }
});

test('--label: an unknown family, or one whose CLI is not installed, is exit 2 at start; --max-leaf a duration', async () => {
  const { dir } = setupRemote(TWO_BALLS_BASE);
  const { agents } = twoBalls(dir, 'bad', {});
  const start = (extra: string[], e = env()) => {
    const proc = spawnLeap(
      ['worker', '--redis', 'redis://127.0.0.1:1', '--repo', '/nowhere', '--agents', agents, ...extra],
      { cwd: dir, env: e },
    );
    return proc.exited.then((end) => ({ ...end, err: proc.err() }));
  };
  // Five workers that each end at start, run side by side.
  const [unknown, missing, malformed, leaf, fine] = await Promise.all([
    start(['--label', 'nosuch']),
    start(['--label', 'claude'], { ...env(), PATH: '/nonexistent' }),
    start(['--label', 'a b\u001b']),
    start(['--max-leaf', 'soon']),
    // The labels pass: the next check is Redis's.
    start(['--label', 'fb', '--max-leaf', '30s']),
  ]);
  assert.is(unknown.code, 2);
  assert.match(
    unknown.err,
    /--label "nosuch": no agent of the family "nosuch" here \(the families of the built-ins and \S+agents\.json: anthropic, f1, f2, fb, fb2, google, openai\)/,
  );
  assert.is(missing.code, 2);
  assert.match(
    missing.err,
    /--label "claude": no agent of the family "anthropic" is installed here: claude \(claude not found\)/,
  );
  assert.is(malformed.code, 2);
  assert.match(malformed.err, /Expected --label to be an agent family .*, got "a b\\u001b"/);
  assert.is(leaf.code, 2);
  assert.match(leaf.err, /Expected --max-leaf to be a non-negative duration/);
  assert.is(fine.code, 2);
  assert.match(fine.err, /cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
});

test('--max-leaf: the worker cuts each leaf at its own limit, whatever the job says', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(TWO_BALLS_BASE);
  // x's builder waits on a gate never opened: only the worker's limit ends it.
  const { file, agents } = twoBalls(dir, 'capped', {}, false, { x: gateFile(dir, 'never') });
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents, '--max-leaf', '1s'], env());
  try {
    await m1.waitFor(/waiting for rounds/);
    assert.match(m1.err(), /--max-leaf 1\.0 s/);
    const { summary: running } = runQueued(redis.url, file, repo, agents, { jobs: 1, env: env() });
    await m1.waitFor(/capped\/x round 1: taken \(job [^)]*, each leaf cut at 1\.0 s by --max-leaf\)/);
    await running;
    assert.is(
      readLeap<{ builder: { status: string } }>(repo, 'capped', 'x', 'round-1.json')?.builder.status,
      'killed-timeout',
    );
  } finally {
    await stopAll(redis, m1);
  }
});

test('priorities: a busy worker takes the rounds of the slice run with the higher --priority first, whatever the order they were queued in', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(TWO_BALLS_BASE);
  const gate = gateFile(dir, 'busy');
  const busy = twoBalls(dir, 'busy', {}, false, { x: gate, y: gate });
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', busy.agents], env());
  try {
    await m1.waitFor(/waiting for rounds/);
    // The worker busy with busy/x; busy/y queued behind it (priority 0).
    const first = runQueued(redis.url, busy.file, repo, busy.agents, { jobs: 2, env: env() });
    await m1.waitFor(/busy\/[xy] round 1: taken/);
    const waiting = async (n: number) =>
      until(`${n} rounds waiting`, async () => ((await workersView(redis.url)).queue.counts.prioritized ?? 0) >= n);
    await waiting(1);
    // Slices of the same two balls, in folders of their own; built with busy's agents (their gate open by then).
    const low = twoBalls(makeTempDir('leap-low-'), 'low', {});
    const lowRun = runQueued(redis.url, low.file, repo, busy.agents, { jobs: 1, env: env(), priority: 1 });
    await waiting(2);
    const high = twoBalls(makeTempDir('leap-high-'), 'high', {});
    const highRun = runQueued(redis.url, high.file, repo, busy.agents, { jobs: 1, env: env(), priority: 9 });
    await waiting(3);
    openGate(gate);
    for (const run of [first, lowRun, highRun])
      assert.is((await run.summary).receipt, 1, `${run.lines.join('\n')}\n${m1.err()}`);
    const order = m1
      .err()
      .split('\n')
      .flatMap((l) => /: (\w+)\/(\w) round 1: taken/.exec(l)?.slice(1, 3).join('/') ?? []);
    // The high slice's first round is taken before the low one's, though queued after it.
    assert.ok(order.indexOf('high/x') < order.indexOf('low/x'), order.join(' '));
    assert.ok(order.indexOf('high/x') >= 0 && order.indexOf('low/x') >= 0, order.join(' '));
  } finally {
    await stopAll(redis, m1);
  }
});

test.run();
