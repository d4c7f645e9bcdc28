import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import {
  ball,
  contentProof,
  readLeap,
  runQueued,
  setupRemote,
  spawnWorker,
  startRedis,
  stopAll,
  writeAgents,
  writeSlice,
} from './helpers.js';

const BASE = { 'src/a.txt': 'old a\n' };

const test = suite('bullmq runner: remotes that cannot be reached');
test.after.each(cleanupTempDirs);

function oneBall(dir: string, id = 'far') {
  const file = writeSlice(dir, {
    id,
    balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })],
  });
  const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
  return { file, agents };
}

test('a worker that cannot reach the remote says so at start and when it takes a job, and hands the job back; a worker that can builds it', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(BASE);
  const { file, agents } = oneBall(dir);
  const nowhere = join(makeTempDir('leap-nowhere-'), 'missing.git');
  const lost = spawnWorker(redis.url, nowhere, 'lost', ['--agents', agents]);
  let good: ReturnType<typeof spawnWorker> | null = null;
  try {
    await lost.waitFor(/waiting for rounds/);
    // Said at start, before any job arrives; the worker waits on.
    const start = await lost.waitFor(/cannot clone the remote/);
    assert.ok(start.startsWith(`leap worker: cannot clone the remote ${nowhere}: git clone`), start);
    assert.match(start, /; the rounds this worker takes go back to the queue until it can$/);
    assert.not.match(lost.err(), /round 1: taken/);
    const { summary: running } = runQueued(redis.url, file, repo, agents);
    const line = await lost.waitFor(/cannot reach the remote/);
    assert.ok(line.startsWith(`leap worker: far/a round 1: cannot reach the remote ${nowhere}: git clone`), line);
    assert.match(line, /the job goes back to the queue, this worker waits 1\.0 s/);
    assert.ok(!existsSync(join(lost.dir, 'w', 'repo.git')), 'no half clone left');
    good = spawnWorker(redis.url, remote, 'good', ['--agents', agents]);
    const summary = await running;
    assert.is(summary.receipt, 1, good.err() + lost.err());
    assert.is(readLeap<{ worker: string }>(repo, 'far', 'a', 'round-1.json')?.worker, 'good');
    assert.is(lost.child.exitCode, null, 'the worker that cannot reach the remote keeps running');
  } finally {
    await stopAll(redis, good, lost);
  }
});

test('an engine that cannot push to its remote holds the ball with the reason, nothing queued', async () => {
  const redis = await startRedis();
  const { repo, dir } = setupRemote(BASE);
  const { file, agents } = oneBall(dir, 'nopush');
  git(repo, 'remote', 'set-url', 'origin', join(dir, 'gone.git'));
  const summary = await runQueued(redis.url, file, repo, agents).summary;
  await redis.stop();
  assert.is(summary.receipt, 0);
  assert.match(
    summary.balls[0]?.reason ?? '',
    /^the engine failed on this ball: cannot push leap\/nopush\/a to the remote origin \(tried 5 times\): git push/,
  );
});

test('a worker whose --repo is another repository: the round fails after its attempts, the ball is held saying why', async () => {
  const redis = await startRedis();
  const { repo, dir } = setupRemote(BASE);
  const other = setupRemote({ 'other.txt': 'another repository\n' });
  const { file, agents } = oneBall(dir, 'wrong');
  const wrong = spawnWorker(redis.url, other.remote, 'wrong', ['--agents', agents]);
  try {
    // The engine starts while the worker does (it takes the round once it is up).
    const ready = wrong.waitFor(/waiting for rounds/);
    const run = runQueued(redis.url, file, repo, agents);
    await ready;
    const summary = await run.summary;
    assert.is(summary.receipt, 0);
    assert.match(
      summary.balls[0]?.reason ?? '',
      /^the engine failed on this ball: the workers could not build wrong\.a\.r1\.[0-9a-f.]+\.b: the round's commit [0-9a-f]{40} is not on .*: is --repo the engine's remote\?/,
    );
    assert.is(
      wrong
        .err()
        .split('\n')
        .filter((l) => l.includes('wrong/a round 1: failed: ')).length,
      3,
    );
  } finally {
    await stopAll(redis, wrong);
  }
});

test.run();
