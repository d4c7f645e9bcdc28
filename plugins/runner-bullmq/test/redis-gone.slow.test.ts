import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs } from '@leap/test-utils';
import { setupRemote, spawnWorker, startRedis } from './helpers.js';

const test = suite('bullmq runner: a worker whose Redis is gone');
test.after.each(cleanupTempDirs);

test('a worker sent TERM while its Redis server is stopped ends at once (exit 0), saying it did not wait for Redis', async () => {
  const redis = await startRedis();
  const { remote } = setupRemote({ 'a.txt': 'a\n' });
  const m1 = spawnWorker(redis.url, remote, 'm1');
  try {
    await m1.waitFor(/waiting for rounds/);
    await redis.stop();
    // The worker has noticed (its connection retries), then is asked to stop.
    await m1.waitFor(/redis: .*\(retrying\)/, 30_000);
    m1.child.kill('SIGTERM');
    // Bounded only so a regression fails instead of hanging: it used to take minutes, and a second TERM.
    const ended = await Promise.race([m1.exited, new Promise<null>((r) => setTimeout(() => r(null), 30_000).unref())]);
    assert.ok(ended !== null, `still running 30 s after TERM:\n${m1.err()}`);
    assert.is(ended.code, 0, m1.err());
    assert.match(m1.err(), /SIGTERM: taking no more jobs/);
    assert.match(m1.err(), /Redis at redis:\/\/127\.0\.0\.1:\d+ does not answer: not waiting for it/);
    assert.match(m1.err(), /m1: stopped/);
  } finally {
    m1.child.kill('SIGKILL');
    await redis.stop();
  }
});

test.run();
