import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { GitError } from '@leap/core';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { PREFIX, QUEUE, checkRedisUrl, createBullmqRunner, jobId, startWorker, timings } from '../src/index.js';
import { git as runGit } from '../src/git.js';
import { msFromEnv, remoteId } from '../src/protocol.js';
import { remoteKey } from '../src/remote.js';
import { readQueueSecret, seal, unseal } from '../src/sign.js';
import { checkRemote, remoteKind } from '../src/remote.js';
import { redact, redactUrl, secretsOf, showText } from '../src/text.js';
import { SECRET, roundRequest, setupRemote, startRedis, testEnv, until } from './helpers.js';

const test = suite('bullmq runner: its parts');
test.after.each(cleanupTempDirs);

test('job ids name the ball and round, safely; timings from the environment, else the defaults', () => {
  assert.is(jobId({ slice: 'my slice', ball: 'b:1', round: 2, commit: 'abcdef0123456789' }, 'run1'), 'my_slice.b_1.r2.abcdef012345.run1');
  // The builder last: the same round asked of the next builder after a fall-over is another job.
  assert.is(jobId({ slice: 'my slice', ball: 'b:1', round: 2, commit: 'abcdef0123456789', agent: 'claude $x' }, 'run1'), 'my_slice.b_1.r2.abcdef012345.run1.claude__x');
  assert.equal(timings({}), { lockMs: 30_000, stalledMs: 30_000, retryMs: 5_000, pollMs: 1000, roundMs: 0 });
  assert.is(timings({ LEAP_BULLMQ_ROUND_MS: '1500' }).roundMs, 1500);
  assert.equal(timings({ LEAP_BULLMQ_LOCK_MS: '2000' }).stalledMs, 2000);
  for (const bad of ['', 'x', '-1', '0']) assert.is(msFromEnv({ X: bad }, 'X', 7), 7);
  assert.is(checkRedisUrl('rediss://h:1'), 'rediss://h:1');
});

test('--remote: a name the repository has, a path that is there, or a URL (reached later); anything else is a UsageError (exit 2) naming it', async () => {
  const { remote, repo } = setupRemote({ 'a.txt': 'a\n' });
  assert.equal(['origin', '/srv/r.git', './r.git', 'r/x.git', 'ssh://git@h/r.git', 'git@h:r.git', 'https://tok@h/r.git', 'file:///srv/r.git'].map(remoteKind), [
    'name',
    'path',
    'path',
    'path',
    'url',
    'url',
    'url',
    'url',
  ]);
  for (const ok of ['origin', remote, 'ssh://git@host.invalid/r.git', 'https://tok3n@host.invalid/r.git']) await checkRemote(repo, ok, testEnv());
  const bad: [string, RegExp][] = [
    ['nosuchremote', /^--remote "nosuchremote": the repository has no remote of that name \(its remotes: origin\)/],
    [join(repo, 'gone.git'), /^--remote "[^"]*gone\.git": no such path/],
    ['', /^Expected --remote to be a remote's name, a path or a git URL, got ""/],
    ['-oProxyCommand=x', /^Expected --remote to be a remote's name, a path or a git URL, got "-oProxyCommand=x"/],
  ];
  for (const [given, message] of bad) {
    const error = await checkRemote(repo, given, testEnv()).then(
      () => null,
      (e: Error & { exitCode?: number }) => e,
    );
    assert.ok(error !== null, given);
    assert.is(error.exitCode, 2, given);
    assert.match(error.message, message);
  }
  // A repository with no remote at all says so.
  git(repo, 'remote', 'remove', 'origin');
  const none = await checkRemote(repo, 'origin', testEnv()).then(
    () => null,
    (e: Error) => e,
  );
  assert.match(none?.message ?? '', /the repository has no remote of that name \(it has no remote\)/);
});

test('text: control characters escaped, passwords and tokens redacted, ssh users kept', () => {
  assert.is(showText('a\n\u001b[2J\u0007\u009b b 🦀'), 'a\\u000a\\u001b[2J\\u0007\\u009b b 🦀');
  assert.is(redactUrl('redis://:p%40ss@h:6379/0'), 'redis://:***@h:6379/0');
  assert.is(redactUrl('https://tok3n@git.example/r.git'), 'https://***@git.example/r.git');
  assert.is(redactUrl('ssh://git@host:22/r.git'), 'ssh://git@host:22/r.git');
  assert.is(redactUrl('/srv/r.git'), '/srv/r.git');
  assert.equal(secretsOf('redis://u:p%40ss@h', 'https://tok@h/r', 'ssh://git@h/r', 'nope', undefined), ['p%40ss', 'p@ss', 'tok']);
  assert.is(redact('auth p@ss failed for tok', ['p@ss', 'tok', '']), 'auth *** failed for ***');
});

test('signing: a sealed value opens with its secret and job id only', () => {
  const secret = Buffer.from('sixteen chars ok');
  const sealed = seal(secret, 'job', 'j1', { a: 1 });
  assert.equal(unseal(secret, 'job', 'j1', sealed), { a: 1 });
  assert.throws(() => unseal(secret, 'job', 'j1', { ...sealed, mac: 'zz' }), /wrongly signed/);
  assert.throws(() => unseal(secret, 'job', 'j1', { ...sealed, body: 'not json', mac: seal(secret, 'job', 'j1', 0).mac }), /wrongly signed/);
  assert.throws(() => unseal(secret, 'job', 'j1', null), /the job is unsigned/);
  assert.throws(() => readQueueSecret({}), /the queue needs a secret/);
  assert.is(readQueueSecret({ LEAP_QUEUE_SECRET: '🦀'.repeat(16) }).toString(), '🦀'.repeat(16));
});

test("git: core's GitError, naming the subcommand (never its data) and saying what git said", async () => {
  const dir = makeTempDir('leap-git-');
  try {
    await runGit(dir, ['rev-parse', 'HEAD']);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, GitError);
    assert.equal((error as GitError).args, ['rev-parse', 'HEAD']);
    assert.match((error as Error).message, /^git rev-parse failed \(exit 128\) in .*: .*not a git repository/);
  }
});

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
    await queue.add('round', seal(secret, 'job', 'stale', { run: 'dead', remote: origin, request: { slice: 'lone' } }), { jobId: 'stale' });
    await queue.add('round', seal(secret, 'job', 'other-remote', { run: 'dead', remote: remoteId('elsewhere'), request: { slice: 'lone' } }), { jobId: 'other-remote' });
    // Unsigned, or signed with another secret: no engine's, left alone (the workers refuse them).
    await queue.add('round', { run: 'dead', remote: origin, request: { slice: 'lone' } }, { jobId: 'unsigned' });
    await queue.add('round', seal(Buffer.from('another secret of 16+'), 'job', 'forged', { run: 'dead', remote: origin, request: { slice: 'lone' } }), { jobId: 'forged' });
    const runner = createBullmqRunner({ redis: redis.url, repoRoot: repo, stateDir: join(repo, '.tdd'), env: testEnv() });
    const pending = runner.buildRound(request(repo, 'lone'));
    const id = jobId(request(repo, 'lone'), runner.run);
    const ids = async () => (await queue.getJobs(['waiting', 'prioritized'])).map((j) => j.id).sort();
    for (let i = 0; i < 100 && JSON.stringify(await ids()) !== JSON.stringify([id, 'forged', 'other-remote', 'unsigned'].sort()); i++) await new Promise((r) => setTimeout(r, 50));
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
      assert.match((error as Error).message, /^the run stopped while lone\.a\.r1\.[0-9a-f]{12}\.[0-9a-f]{12}\.b was queued/);
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
  writeFileSync(hook, `#!/bin/sh\nn=0; refuse=0\nwhile read old new ref; do n=$((n+1)); [ "$ref" = refs/heads/leap/r2/a ] && refuse=1; done\necho "$n" >> '${log}'\nexit $refuse\n`);
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
    const together = ['c1', 'c2', 'c3'].map((slice) => first.buildRound(request(repo, slice)).catch((error: Error) => error));
    await until('three rounds queued', async () => ((await Promise.all(['c1', 'c2', 'c3'].map((slice) => queued(first, slice)))).every(Boolean) ? true : null));
    assert.equal(pushes(), [3]);
    for (const slice of ['c1', 'c2', 'c3']) assert.is(git(repo, 'ls-remote', 'origin', `refs/heads/leap/${slice}/a`).split('\t')[0], request(repo, slice).commit);
    // One branch refused: the batch fails, each is pushed alone, and only r2's round fails (after its retries).
    const mixed = ['r1', 'r2', 'r3'].map((slice) => second.buildRound(request(repo, slice)).catch((error: Error) => error));
    const refused = await mixed[1];
    assert.match(String((refused as Error).message), /^cannot push leap\/r2\/a to the remote origin \(tried 5 times\): /);
    assert.ok(await queued(second, 'r1'));
    assert.ok(await queued(second, 'r3'));
    assert.not.ok(await queued(second, 'r2'));
    // After the three-ref push above: the batch of three, the three alone, then r2's four retries alone.
    assert.equal(pushes(), [3, 3, 1, 1, 1, 1, 1, 1, 1]);
    await first.close();
    await second.close();
    for (const pending of [...together, mixed[0], mixed[2]]) assert.match(String(((await pending) as Error).message), /^the run stopped while /);
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
  const worker = await startWorker({ redis: redis.url, repo: remote, secret: Buffer.from(SECRET), dir: join(makeTempDir('leap-machine-'), 'w'), env, log: (l) => lines.push(l) });
  const runner = createBullmqRunner({ redis: redis.url, repoRoot: repo, stateDir: join(repo, '.tdd'), env });
  try {
    await runner.buildRound(request(repo, 'fails', 'nobody-at-all'));
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, /^the workers could not build fails\.a\.r1\.[0-9a-f.]+\.nobody-at-all: .*nobody-at-all/);
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
