import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { GitError } from '@leap/core';
import { checkRedisUrl, jobId, timings } from '../src/index.js';
import { git as runGit } from '../src/git.js';
import { msFromEnv } from '../src/protocol.js';
import { readQueueSecret, seal, unseal } from '../src/sign.js';
import { checkRemote, remoteKind } from '../src/remote.js';
import { redact, redactUrl, secretsOf } from '../src/text.js';
import { setupRemote, testEnv } from './helpers.js';

const test = suite('bullmq runner: its parts');
test.after.each(cleanupTempDirs);

test('job ids name the ball and round, safely; timings from the environment, else the defaults', () => {
  assert.is(
    jobId({ slice: 'my slice', ball: 'b:1', round: 2, commit: 'abcdef0123456789' }, 'run1'),
    'my_slice.b_1.r2.abcdef012345.run1',
  );
  // The builder last: the same round asked of the next builder after a fall-over is another job.
  assert.is(
    jobId({ slice: 'my slice', ball: 'b:1', round: 2, commit: 'abcdef0123456789', agent: 'claude $x' }, 'run1'),
    'my_slice.b_1.r2.abcdef012345.run1.claude__x',
  );
  assert.equal(timings({}), { lockMs: 30_000, stalledMs: 30_000, retryMs: 5_000, pollMs: 1000, roundMs: 0 });
  assert.is(timings({ LEAP_BULLMQ_ROUND_MS: '1500' }).roundMs, 1500);
  assert.equal(timings({ LEAP_BULLMQ_LOCK_MS: '2000' }).stalledMs, 2000);
  for (const bad of ['', 'x', '-1', '0']) assert.is(msFromEnv({ X: bad }, 'X', 7), 7);
  assert.is(checkRedisUrl('rediss://h:1'), 'rediss://h:1');
});

test('--remote: a name the repository has, a path that is there, or a URL (reached later); anything else is a UsageError (exit 2) naming it', async () => {
  const { remote, repo } = setupRemote({ 'a.txt': 'a\n' });
  assert.equal(
    [
      'origin',
      '/srv/r.git',
      './r.git',
      'r/x.git',
      'ssh://git@h/r.git',
      'git@h:r.git',
      'https://tok@h/r.git',
      'file:///srv/r.git',
    ].map(remoteKind),
    ['name', 'path', 'path', 'path', 'url', 'url', 'url', 'url'],
  );
  for (const ok of ['origin', remote, 'ssh://git@host.invalid/r.git', 'https://tok3n@host.invalid/r.git'])
    await checkRemote(repo, ok, testEnv());
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

test('text: passwords and tokens redacted, ssh users kept', () => {
  assert.is(redactUrl('redis://:p%40ss@h:6379/0'), 'redis://:***@h:6379/0');
  assert.is(redactUrl('https://tok3n@git.example/r.git'), 'https://***@git.example/r.git');
  assert.is(redactUrl('ssh://git@host:22/r.git'), 'ssh://git@host:22/r.git');
  assert.is(redactUrl('/srv/r.git'), '/srv/r.git');
  assert.equal(secretsOf('redis://u:p%40ss@h', 'https://tok@h/r', 'ssh://git@h/r', 'nope', undefined), [
    'p%40ss',
    'p@ss',
    'tok',
  ]);
  assert.is(redact('auth p@ss failed for tok', ['p@ss', 'tok', '']), 'auth *** failed for ***');
});

test('signing: a sealed value opens with its secret and job id only', () => {
  const secret = Buffer.from('sixteen chars ok');
  const sealed = seal(secret, 'job', 'j1', { a: 1 });
  assert.equal(unseal(secret, 'job', 'j1', sealed), { a: 1 });
  assert.throws(() => unseal(secret, 'job', 'j1', { ...sealed, mac: 'zz' }), /wrongly signed/);
  assert.throws(
    () => unseal(secret, 'job', 'j1', { ...sealed, body: 'not json', mac: seal(secret, 'job', 'j1', 0).mac }),
    /wrongly signed/,
  );
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

test.run();
