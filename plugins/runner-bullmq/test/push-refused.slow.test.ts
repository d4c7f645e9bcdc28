// A worker that can fetch from the remote but never push to it: each push failure spends one of the job's
// attempts, with the job's growing backoff, and the round fails after the last one instead of being handed
// back after every whole build for ever. The engine ends (the ball held) and says why.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs } from '@leap/test-utils';
import {
  ball,
  contentProof,
  runQueued,
  setupRemote,
  spawnWorker,
  startRedis,
  stopAll,
  testEnv,
  writeAgents,
  writeSlice,
} from './helpers.js';

const BASE = { 'src/a.txt': 'old a\n' };

const test = suite("bullmq runner: a remote that refuses the worker's pushes");
test.after.each(cleanupTempDirs);

test("the worker builds, cannot push, spends the job's attempts with backoff; the job fails after the third and the engine holds the ball", async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(BASE);
  // The remote's pre-receive hook refuses the pushes of the worker only (its environment says who pushes):
  // the engine's own push of the round's commit goes through, the worker's fetches too.
  const hook = join(remote, 'hooks', 'pre-receive');
  writeFileSync(
    hook,
    '#!/bin/sh\nif [ -n "$LEAP_TEST_REFUSE_PUSH" ]; then echo "pushes from this worker are refused" >&2; exit 1; fi\nexit 0\n',
  );
  chmodSync(hook, 0o755);
  const file = writeSlice(dir, {
    id: 'nopush',
    balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })],
  });
  const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents], testEnv({ LEAP_TEST_REFUSE_PUSH: '1' }));
  try {
    // The engine starts while the worker does (it takes the round once it is up).
    const ready = m1.waitFor(/waiting for rounds/);
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents);
    await ready;
    const summary = await running;
    const said = m1
      .err()
      .split('\n')
      .filter((l) => l.includes('nopush/a round 1: built, but cannot push'));
    assert.is(said.length, 3, m1.err());
    assert.match(said[0] as string, /attempt 1 of 3 spent, the round is tried again after the job's backoff/);
    assert.match(said[1] as string, /attempt 2 of 3 spent, the round is tried again/);
    assert.match(said[2] as string, /attempt 3 of 3 spent, the round fails$/);
    assert.match(said[0] as string, /pushes from this worker are refused/);
    // Handed back never: a push failure is not "the remote is out of reach".
    assert.not.match(m1.err(), /nopush\/a round 1: cannot reach the remote/);
    // The engine ended on its own, the ball not passed, and says why.
    assert.is.not(summary.receipt, 1, lines.join('\n'));
    assert.equal(
      summary.balls.map((b) => [b.id, b.receipt === 1]),
      [['a', false]],
    );
    assert.match(lines.join('\n'), /could not be pushed to the remote/);
  } finally {
    await stopAll(redis, m1);
  }
});

test.run();
