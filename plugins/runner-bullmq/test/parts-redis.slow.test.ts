import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { PREFIX, QUEUE, createBullmqRunner, jobId, startWorker } from '../src/index.js';
import { remoteId } from '../src/protocol.js';
import { remoteKey } from '../src/remote.js';
import { seal } from '../src/sign.js';
import { SECRET, roundRequest, setupRemote, startRedis, testEnv, until } from './helpers.js';

const test = suite('bullmq runner: its parts on Redis');
test.after.each(cleanupTempDirs);

const request = (repo: string, slice: string, agent = 'b') => roundRequest(repo, slice, agent);

test("the runner: a dead engine's queued rounds dropped, a job Redis lost queued again, the queued rounds taken off at close", async () => {
  const redis = await startRedis();
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue(QUEUE, { connection, prefix: PREFIX });
  try {
    const { repo } = setupRemote({ 'a.txt': 'a\n' });
    const secret = Buffer.from(SECRET);
    // Jobs name their remote by its URL (remoteKey): origin is the same remote as its path.
    const origin = await remoteKey(repo, 'origin', testEnv());
    assert.is(origin, await remoteKey(repo, git(repo, 'remote', 'get-url', 'origin').trim(), testEnv()));
    assert.is.not(origin, remoteId('origin'));
    await queue.add(
      'round',
      seal(secret, 'job', 'stale', { run: 'dead', remote: origin, request: { slice: 'lone' } }),
      { jobId: 'stale' },
    );
    await queue.add(
      'round',
      seal(secret, 'job', 'other-remote', { run: 'dead', remote: remoteId('elsewhere'), request: { slice: 'lone' } }),
      { jobId: 'other-remote' },
    );
    // Unsigned, or signed with another secret: no engine's, left alone (the workers refuse them).
    await queue.add('round', { run: 'dead', remote: origin, request: { slice: 'lone' } }, { jobId: 'unsigned' });
    await queue.add(
      'round',
      seal(Buffer.from('another secret of 16+'), 'job', 'forged', {
        run: 'dead',
        remote: origin,
        request: { slice: 'lone' },
      }),
      { jobId: 'forged' },
    );
    const runner = createBullmqRunner({
      redis: redis.url,
      repoRoot: repo,
      stateDir: join(repo, '.tdd'),
      env: testEnv(),
    });
    const pending = runner.buildRound(request(repo, 'lone'));
    const id = jobId(request(repo, 'lone'), runner.run);
    const ids = async () => (await queue.getJobs(['waiting', 'prioritized'])).map((j) => j.id).sort();
    for (
      let i = 0;
      i < 100 && JSON.stringify(await ids()) !== JSON.stringify([id, 'forged', 'other-remote', 'unsigned'].sort());
      i++
    )
      await new Promise((r) => setTimeout(r, 50));
    assert.equal(await ids(), [id, 'forged', 'other-remote', 'unsigned'].sort());
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
      assert.match(
        (error as Error).message,
        /^the run stopped while lone\.a\.r1\.[0-9a-f]{12}\.[0-9a-f]{12}\.b was queued/,
      );
    }
    assert.equal(await ids(), ['forged', 'other-remote', 'unsigned']);
  } finally {
    await queue.close();
    connection.disconnect();
    await redis.stop();
  }
});

test("the rounds' commits asked for together go to the remote in one push; a batch refused is pushed again one by one, so a refused branch fails its own round only", async () => {
  const redis = await startRedis();
  const { remote, repo } = setupRemote({ 'a.txt': 'a\n' });
  // The remote counts the refs of each push, and refuses leap/r2/a.
  const log = join(makeTempDir('leap-hook-'), 'pushes');
  const hook = join(remote, 'hooks', 'pre-receive');
  writeFileSync(
    hook,
    `#!/bin/sh\nn=0; refuse=0\nwhile read old new ref; do n=$((n+1)); [ "$ref" = refs/heads/leap/r2/a ] && refuse=1; done\necho "$n" >> '${log}'\nexit $refuse\n`,
  );
  chmodSync(hook, 0o755);
  const pushes = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map(Number) : []);
  const queued = async (runner: { run: string }, slice: string) => {
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue(QUEUE, { connection, prefix: PREFIX });
    try {
      return (await queue.getJob(jobId(request(repo, slice), runner.run))) !== undefined;
    } finally {
      await queue.close();
      connection.disconnect();
    }
  };
  const first = createBullmqRunner({ redis: redis.url, repoRoot: repo, stateDir: join(repo, '.tdd'), env: testEnv() });
  const second = createBullmqRunner({ redis: redis.url, repoRoot: repo, stateDir: join(repo, '.tdd'), env: testEnv() });
  try {
    // Three rounds made ready together (as a wave's balls are): one push of three refs.
    const together = ['c1', 'c2', 'c3'].map((slice) =>
      first.buildRound(request(repo, slice)).catch((error: Error) => error),
    );
    await until('three rounds queued', async () =>
      (await Promise.all(['c1', 'c2', 'c3'].map((slice) => queued(first, slice)))).every(Boolean) ? true : null,
    );
    assert.equal(pushes(), [3]);
    for (const slice of ['c1', 'c2', 'c3'])
      assert.is(
        git(repo, 'ls-remote', 'origin', `refs/heads/leap/${slice}/a`).split('\t')[0],
        request(repo, slice).commit,
      );
    // One branch refused: the batch fails, each is pushed alone, and only r2's round fails (after its retries).
    const mixed = ['r1', 'r2', 'r3'].map((slice) =>
      second.buildRound(request(repo, slice)).catch((error: Error) => error),
    );
    const refused = await mixed[1];
    assert.match(
      String((refused as Error).message),
      /^cannot push leap\/r2\/a to the remote origin \(tried 5 times\): /,
    );
    assert.ok(await queued(second, 'r1'));
    assert.ok(await queued(second, 'r3'));
    assert.not.ok(await queued(second, 'r2'));
    // After the three-ref push above: the batch of three, the three alone, then r2's four retries alone.
    assert.equal(pushes(), [3, 3, 1, 1, 1, 1, 1, 1, 1]);
    await first.close();
    await second.close();
    for (const pending of [...together, mixed[0], mixed[2]])
      assert.match(String(((await pending) as Error).message), /^the run stopped while /);
  } finally {
    await first.close();
    await second.close();
    await redis.stop();
  }
});

test('a round no worker can build (its agent does not exist) fails after its attempts: the engine is told why', async () => {
  const redis = await startRedis();
  const home = makeTempDir('leap-home-');
  const { remote, repo } = setupRemote({ 'a.txt': 'a\n' });
  const lines: string[] = [];
  const env = testEnv({ HOME: home });
  const worker = await startWorker({
    redis: redis.url,
    repo: remote,
    secret: Buffer.from(SECRET),
    dir: join(makeTempDir('leap-machine-'), 'w'),
    env,
    log: (l) => lines.push(l),
  });
  const runner = createBullmqRunner({ redis: redis.url, repoRoot: repo, stateDir: join(repo, '.tdd'), env });
  try {
    await runner.buildRound(request(repo, 'fails', 'nobody-at-all'));
    assert.unreachable();
  } catch (error) {
    assert.match(
      (error as Error).message,
      /^the workers could not build fails\.a\.r1\.[0-9a-f.]+\.nobody-at-all: .*nobody-at-all/,
    );
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
