import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, hostileTitles } from '@leap/test-utils';
import { sliceCommand } from '@leap/slice/cli';
import {
  ball,
  callCommand as call,
  contentProof,
  readLeap,
  setupRemote,
  spawnWorker,
  startRedis,
  stop,
  testEnv,
  writeAgents,
  writeSlice,
} from './helpers.js';

const test = suite('leap slice run --runner bullmq: the command line, with a worker on Redis');
test.after.each(cleanupTempDirs);

test("leap slice run FILE --runner bullmq --redis URL --remote URL --json: one worker builds it, its end heard through the queue's events (no poll), the summary as JSON", async () => {
  const redis = await startRedis();
  const base = { 'src/a.txt': 'old a\n' };
  const { remote, repo, dir } = setupRemote(base);
  const file = writeSlice(dir, {
    id: 'cli',
    balls: [ball('a', ['src/a.txt'], base, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })],
  });
  const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
  // The worker's name is data, byte for byte, into the records and the progress line.
  // (Control characters are refused: a name reaches terminals.)
  const name = (hostileTitles(2, 3)[1] as string).replace(/\p{Cc}/gu, ' ');
  const m1 = spawnWorker(redis.url, remote, name, ['--agents', agents]);
  try {
    // The engine starts while the worker does (it takes the round once it is up).
    const ready = m1.waitFor(/waiting for rounds/);
    const running = call(
      sliceCommand,
      [
        'run',
        file,
        '--runner',
        'bullmq',
        '--redis',
        redis.url,
        '--remote',
        remote,
        '--agents',
        agents,
        '--builder',
        'b',
        '--reviewers',
        'r1,r2',
        '--json',
      ],
      repo,
      testEnv({ LEAP_BULLMQ_POLL_MS: '600000' }),
    );
    const [, out] = await Promise.all([ready, running]);
    assert.is(out.code, 0, out.stderr + m1.err());
    const summary = JSON.parse(out.stdout) as { receipt: number; balls: { id: string; receipt: number }[] };
    assert.equal([summary.receipt, summary.balls.map((b) => [b.id, b.receipt])], [1, [['a', 1]]]);
    assert.ok(out.stderr.includes(`leap slice: ball a: round 1 (worker ${name}): receipt 1`), out.stderr);
    assert.is(readLeap<{ worker: string }>(repo, 'cli', 'a', 'round-1.json')?.worker, name);
  } finally {
    await stop(m1);
    await redis.stop();
  }
});

test.run();
