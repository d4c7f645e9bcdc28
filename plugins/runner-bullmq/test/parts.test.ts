import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import type { RoundRequest } from '@leap/slice';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { PREFIX, QUEUE, checkRedisUrl, createBullmqRunner, jobId, startWorker, timings } from '../src/index.js';
import { git as runGit } from '../src/git.js';
import { msFromEnv } from '../src/protocol.js';
import { setupRemote, startRedis, testEnv } from './helpers.js';

const test = suite('bullmq runner: its parts');
test.after.each(cleanupTempDirs);

test('job ids name the ball and round, safely; timings from the environment, else the defaults', () => {
  assert.is(jobId({ slice: 'my slice', ball: 'b:1', round: 2, commit: 'abcdef0123456789' }, 'run1'), 'my_slice.b_1.r2.abcdef012345.run1');
  assert.equal(timings({}), { lockMs: 30_000, stalledMs: 30_000, retryMs: 5_000, pollMs: 1000 });
  assert.equal(timings({ LEAP_BULLMQ_LOCK_MS: '2000' }).stalledMs, 2000);
  for (const bad of ['', 'x', '-1', '0']) assert.is(msFromEnv({ X: bad }, 'X', 7), 7);
  assert.is(checkRedisUrl('rediss://h:1'), 'rediss://h:1');
});

test('git: what git said when it fails', async () => {
  const dir = makeTempDir('leap-git-');
  try {
    await runGit(dir, ['rev-parse', 'HEAD']);
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, /^git rev-parse HEAD failed: .*not a git repository/);
  }
});

function request(repo: string, slice: string, agent = 'b'): RoundRequest {
  const commit = git(repo, 'rev-parse', 'HEAD').trim();
  return { slice, ball: 'a', round: 1, commit, agent, agentsFile: null, start: commit, branch: `leap/${slice}/a` } as unknown as RoundRequest;
}

test('the runner: a dead engine\'s queued rounds dropped, a job Redis lost queued again, the queued rounds taken off at close', async () => {
  const redis = await startRedis();
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue(QUEUE, { connection, prefix: PREFIX });
  try {
    const { repo } = setupRemote({ 'a.txt': 'a\n' });
    await queue.add('round', { run: 'dead', remote: 'origin', request: { slice: 'lone' } }, { jobId: 'stale' });
    await queue.add('round', { run: 'dead', remote: 'elsewhere', request: { slice: 'lone' } }, { jobId: 'other-remote' });
    const runner = createBullmqRunner({ redis: redis.url, repoRoot: repo, stateDir: join(repo, '.tdd'), env: testEnv() });
    const pending = runner.buildRound(request(repo, 'lone'));
    const id = jobId(request(repo, 'lone'), runner.run);
    const ids = async () => (await queue.getJobs(['waiting'])).map((j) => j.id).sort();
    for (let i = 0; i < 100 && JSON.stringify(await ids()) !== JSON.stringify([id, 'other-remote'].sort()); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await ids(), [id, 'other-remote'].sort());
    // The round's commit is on the remote's ball branch before the job is queued.
    assert.is(git(repo, 'ls-remote', 'origin', 'refs/heads/leap/lone/a').split('\t')[0], request(repo, 'lone').commit);
    await (await queue.getJob(id))?.remove();
    for (let i = 0; i < 100 && (await queue.getJob(id)) === undefined; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok((await queue.getJob(id)) !== undefined, 'queued again');
    await runner.close();
    try {
      await pending;
      assert.unreachable();
    } catch (error) {
      assert.match((error as Error).message, /^the run stopped while lone\.a\.r1\.[0-9a-f]{12}\.[0-9a-f]{12} was queued/);
    }
    assert.equal(await ids(), ['other-remote']);
  } finally {
    await queue.close();
    connection.disconnect();
    await redis.stop();
  }
});

test('a round no worker can build (its agent does not exist) fails after its attempts: the engine is told why', async () => {
  const redis = await startRedis();
  const home = makeTempDir('leap-home-');
  const { remote, repo } = setupRemote({ 'a.txt': 'a\n' });
  const lines: string[] = [];
  const env = testEnv({ HOME: home });
  const worker = await startWorker({ redis: redis.url, repo: remote, dir: join(makeTempDir('leap-machine-'), 'w'), env, log: (l) => lines.push(l) });
  const runner = createBullmqRunner({ redis: redis.url, repoRoot: repo, stateDir: join(repo, '.tdd'), env });
  try {
    await runner.buildRound(request(repo, 'fails', 'nobody-at-all'));
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, /^the workers could not build fails\.a\.r1\.[0-9a-f.]+: .*nobody-at-all/);
  } finally {
    await runner.close();
    await worker.close();
    await redis.stop();
  }
  assert.is(lines.filter((l) => l.startsWith('fails/a round 1: failed: ')).length, 3, lines.join('\n'));
  assert.ok(lines.some((l) => /fails\/a round 1: taken \(job [^)]*, again\)/.test(l)));
  assert.match(lines[0] ?? '', /: waiting for rounds on redis:\/\/127\.0\.0\.1:\d+ \(queue leap-rounds\), --jobs 1/);
});

test.run();
