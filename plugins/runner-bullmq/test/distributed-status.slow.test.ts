import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
// The view's commands as `leap status` and `leap report` run them (this package does not depend on the view).
import { reportMain } from '../../../packages/view/src/report-cli.js';
import { statusMain } from '../../../packages/view/src/status-cli.js';
import { PREFIX, QUEUE } from '../src/protocol.js';
import { phaseOf } from '../src/progress.js';
import {
  callCommand,
  gateFile,
  openGate,
  runQueued,
  SECRET,
  setupRemote,
  spawnWorker,
  startRedis,
  stopAll,
  testEnv,
  TWO_BALLS_BASE,
  twoBalls,
  until,
} from './helpers.js';

type Remote = { slice: string; ball: string; round: number; state: string; worker: string | null };

const test = suite('leap status and leap report: distributed rounds as they run');
test.after.each(cleanupTempDirs);

test('an engine with no worker: its round is queued and no worker has taken it; then building on worker m1; gone from Running now once returned', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(TWO_BALLS_BASE);
  const gate = gateFile(dir, 'x');
  // y after x: one round at a time.
  const { file, agents } = twoBalls(dir, 'seen', {}, true, { x: gate });
  let m1: ReturnType<typeof spawnWorker> | null = null;
  const status = async () => {
    const out = await callCommand(statusMain, ['--json'], repo, testEnv());
    assert.is(out.code, 0, out.stderr);
    return (JSON.parse(out.stdout) as { remote: Remote[] }).remote;
  };
  const text = async () => (await callCommand(statusMain, [], repo, { ...testEnv(), NO_COLOR: '1' })).stdout;
  const report = async () => {
    const out = join(makeTempDir('leap-report-'), 'report.html');
    const made = await callCommand(reportMain, ['--out', out], repo, testEnv());
    assert.is(made.code, 0, made.stderr);
    return readFileSync(out, 'utf8');
  };
  try {
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents, { jobs: 2 });
    await until('x queued', async () => (await status()).some((r) => r.ball === 'x' && r.state === 'queued'));
    assert.equal(
      (await status()).map(({ slice, ball, round, state, worker }) => ({ slice, ball, round, state, worker })),
      [{ slice: 'seen', ball: 'x', round: 1, state: 'queued', worker: null }],
    );
    // The engine says so itself too, once.
    await until('the engine says no worker took it', () =>
      lines.includes(
        'ball x: round 1: queued, and no worker is connected to the queue leap-rounds: no worker has taken it (leap workers lists them; it waits for one)',
      ),
    );
    const queued = await text();
    assert.match(queued, /◌ slice seen ball x round 1 {2}queued for [^:]+: no worker has taken it/);
    assert.not.match(queued, /no leaf is running/);
    assert.match(await report(), /data-remote="queued">round 1: queued: no worker has taken it</);

    m1 = spawnWorker(redis.url, remote, 'm1 <b>', ['--agents', agents]);
    await until('x building on m1', async () =>
      (await status()).some((r) => r.ball === 'x' && r.state === 'building' && r.worker === 'm1 <b>'),
    );
    assert.match(await text(), /● slice seen ball x round 1 {2}building on worker m1 <b> (\([a-z ]+\) )?for /);
    assert.match(await report(), /data-remote="building">round 1: building on worker m1 &lt;b&gt;( \([a-z ]+\))?</);
    openGate(gate);
    const summary = await running;
    assert.is(summary.receipt, 1, `${lines.join('\n')}\n${m1.err()}`);
    // The engine is done: nothing of its rounds is shown as running.
    assert.equal(await status(), []);
    assert.match(await text(), /no leaf is running/);
  } finally {
    await stopAll(redis, m1);
  }
});

test("a round's progress through BullMQ's job progress: the worker's phases in order, signed; remote-round.json shows the phase; a forged progress is not shown", async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(TWO_BALLS_BASE);
  const gate = gateFile(dir, 'x');
  const { file, agents } = twoBalls(dir, 'prog', {}, true, { x: gate });
  const { QueueEvents } = await import('bullmq');
  const { Redis } = await import('ioredis');
  const raw = new Redis(redis.url);
  const listenConnection = new Redis(redis.url, { maxRetriesPerRequest: null });
  const listen = new QueueEvents(QUEUE, { connection: listenConnection, prefix: PREFIX });
  const heard: { job: string; data: unknown }[] = [];
  listen.on('progress', ({ jobId, data }) => heard.push({ job: jobId, data }));
  await listen.waitUntilReady();
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents]);
  const picture = () => {
    try {
      return JSON.parse(readFileSync(join(repo, '.leap', 'prog', 'x', 'remote-round.json'), 'utf8')) as {
        state: string;
        phase: string | null;
        job: string;
      };
    } catch {
      return null;
    }
  };
  try {
    // The engine starts while the worker does (it takes the round once it is up).
    const ready = m1.waitFor(/waiting for rounds/);
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents, { jobs: 1 });
    await ready;
    const building = await until('x building, its builder waiting', () =>
      picture()?.phase === 'building' ? picture() : null,
    );
    assert.is(building.state, 'building');
    // A progress written to the job by anyone with Redis access (unsigned, or another job's): the engine shows no phase.
    const signedElsewhere = heard.find((h) => h.job === building.job)?.data;
    await raw.hset(
      `${PREFIX}:${QUEUE}:${building.job}`,
      'progress',
      JSON.stringify({ phase: 'pushing', at: Date.now() }),
    );
    await raw.xadd(`${PREFIX}:${QUEUE}:events`, '*', 'event', 'progress', 'jobId', building.job, 'data', '{}');
    await until('the forged phase not shown', () => (picture()?.phase === null ? true : null));
    assert.is(picture()?.state, 'building');
    const other = await raw.hset(
      `${PREFIX}:${QUEUE}:${building.job}`,
      'progress',
      JSON.stringify({ ...(signedElsewhere as object), mac: '0'.repeat(64) }),
    );
    assert.is(other, 0);
    await new Promise((r) => setTimeout(r, 300));
    assert.is(picture()?.phase, null, 'a wrong signature: no phase');
    openGate(gate);
    const summary = await running;
    assert.is(summary.receipt, 1, `${lines.join('\n')}\n${m1.err()}`);
    // Every phase the worker said for each round, in order, each signed for its job.
    for (const ball of ['x', 'y']) {
      const job = heard.find((h) => h.job.startsWith(`prog.${ball}.r1.`))?.job ?? '';
      const said = heard
        .filter((h) => h.job === job)
        .map((h) => phaseOf(Buffer.from(SECRET), job, h.data)?.phase ?? 'unsigned');
      // The one event this test forged for x is the only one not signed.
      assert.is(said.filter((p) => p === 'unsigned').length, ball === 'x' ? 1 : 0, said.join(' '));
      const phases = said.filter((p) => p !== 'unsigned');
      assert.equal(
        phases,
        ['taken', 'fetching', 'building', 'proving', 'reviewing', 'proving', 'pushing'],
        `${ball}: ${phases.join(' ')}`,
      );
      // Signed for that job only.
      assert.is(phaseOf(Buffer.from(SECRET), `${job}x`, heard.find((h) => h.job === job)?.data), null);
    }
  } finally {
    await listen.close();
    listenConnection.disconnect();
    raw.disconnect();
    await stopAll(redis, m1);
  }
});

test.run();
