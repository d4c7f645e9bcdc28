// The engine's side of a round built elsewhere is bounded: TERM ends the wait at once (the ball held, run
// again to resume), and a round no worker returns within its deadline holds its ball instead of the whole run.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs } from '@leap/test-utils';
import { Redis } from 'ioredis';
import { PREFIX, QUEUE } from '../src/index.js';
import {
  ball,
  contentProof,
  gateFile,
  readLeap,
  runQueued,
  setupRemote,
  spawnLeap,
  spawnWorker,
  startRedis,
  stopAll,
  testEnv,
  until,
  writeAgents,
  writeSlice,
} from './helpers.js';

const BASE = { 'src/a.txt': 'old a\n' };

const test = suite('bullmq runner: the engine stops waiting');
test.after.each(cleanupTempDirs);

function oneBall(dir: string, id: string, wait?: string) {
  const file = writeSlice(dir, {
    id,
    balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })],
  });
  const agents = writeAgents(dir, {
    a: { '*': { ...(wait === undefined ? {} : { wait_for: wait }), edits: [{ path: 'src/a.txt', content: 'A\n' }] } },
  });
  return { file, agents };
}

test('TERM while a worker builds the round (its builder never ends): the engine ends at once, the ball held, saying why', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(BASE);
  const { file, agents } = oneBall(dir, 'term', gateFile(dir, 'never'));
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents]);
  // Stopped at the end if the test failed before it ended (a live engine would outlast the test).
  let engine: ReturnType<typeof spawnLeap> | null = null;
  try {
    // The engine starts while the worker does (it takes the round once it is up).
    const ready = m1.waitFor(/waiting for rounds/);
    engine = spawnLeap(
      [
        'slice',
        'run',
        file,
        '--runner',
        'bullmq',
        '--redis',
        redis.url,
        '--agents',
        agents,
        '--builder',
        'b',
        '--reviewers',
        'r1,r2',
      ],
      { cwd: repo },
    );
    await ready;
    await m1.waitFor(/term\/a round 1: taken/);
    await until('the builder leaf on the worker', () =>
      existsSync(join(m1.dir, 'w', 'state', 'term', 'a', 'build-a-1.pid')),
    );
    engine.child.kill('SIGTERM');
    const end = await engine.exited;
    assert.is(end.code, 3, engine.err());
    assert.match(engine.err(), /SIGTERM: finishing the rounds in flight, holding the balls not yet done/);
    assert.match(engine.err(), /ball a: .*stopped by SIGTERM: the engine stopped waiting for term\.a\.r1\./);
    assert.is(readLeap<{ receipt: number }>(repo, 'term', 'a', 'result.json')?.receipt, 0, 'held: run again to resume');
  } finally {
    await stopAll(redis, m1, engine);
  }
});

test('no worker takes the round within LEAP_BULLMQ_ROUND_MS: the ball is held, the job taken off the queue', async () => {
  const redis = await startRedis();
  const { repo, dir } = setupRemote(BASE);
  const { file, agents } = oneBall(dir, 'late');
  const listen = new Redis(redis.url, { maxRetriesPerRequest: null });
  try {
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents, {
      env: testEnv({ LEAP_BULLMQ_ROUND_MS: '1500' }),
    });
    const summary = await running;
    assert.is(summary.receipt, 0, lines.join('\n'));
    assert.match(
      lines.join('\n'),
      /ball a: .*no worker returned late\.a\.r1\.[0-9a-f.]+\.b within 1\.5 s \(LEAP_BULLMQ_ROUND_MS, else four leaf time limits\); the job was waiting: taken off the queue/,
    );
    assert.is(await listen.llen(`${PREFIX}:${QUEUE}:wait`), 0, 'nothing left for a worker to build');
  } finally {
    listen.disconnect();
    await stopAll(redis);
  }
});

test("a moment's outage of the remote on the engine's side (its first two pushes refused): the engine tries again with backoff and the ball passes", async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(BASE);
  const count = join(dir, 'refused');
  const hook = join(remote, 'hooks', 'pre-receive');
  writeFileSync(
    hook,
    `#!/bin/sh\nn=$(cat '${count}' 2>/dev/null || echo 0)\nif [ "$n" -lt 2 ]; then echo $((n + 1)) > '${count}'; echo "the remote is down for a moment" >&2; exit 1; fi\nexit 0\n`,
  );
  chmodSync(hook, 0o755);
  const { file, agents } = oneBall(dir, 'blip');
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents]);
  try {
    // The engine starts while the worker does (it takes the round once it is up).
    const ready = m1.waitFor(/waiting for rounds/);
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents);
    await ready;
    const summary = await running;
    assert.is(summary.receipt, 1, `${lines.join('\n')}\n${m1.err()}`);
    assert.is(readFileSync(count, 'utf8').trim(), '2', 'two pushes were refused before one went through');
    assert.equal(
      summary.balls.map((b) => [b.id, b.receipt]),
      [['a', 1]],
    );
  } finally {
    await stopAll(redis, m1);
  }
});

test.run();
