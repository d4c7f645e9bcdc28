import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import {
  readLeap,
  receiptsOf,
  runLocal,
  setupRemote,
  spawnLeap,
  spawnWorker,
  spineTree,
  startRedis,
  startSshd,
  stopAll,
  testEnv,
  TWO_BALLS_BASE,
  twoBalls,
} from './helpers.js';

const test = suite('bullmq runner: an ssh remote');
test.after.each(cleanupTempDirs);

test("leap slice run --remote ssh://USER@127.0.0.1:PORT/path and a worker whose --repo is that URL, git told how by GIT_SSH_COMMAND: the slice passes, its spine a local run's", async () => {
  // No sshd is a failure that says so, never a skip.
  const sshd = await startSshd();
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(TWO_BALLS_BASE);
  const url = `ssh://${sshd.user}@127.0.0.1:${sshd.port}${remote}`;
  const { file, agents } = twoBalls(dir, 'far', { x: 200 }, true);
  const env = testEnv({ GIT_SSH_COMMAND: sshd.gitSshCommand });
  const m1 = spawnWorker(redis.url, url, 'm1', ['--agents', agents, '--jobs', '2'], env);
  try {
    // The engine starts while the worker does (it takes the rounds once it is up).
    const ready = m1.waitFor(/waiting for rounds/);
    const engine = spawnLeap(
      [
        'slice',
        'run',
        file,
        '--runner',
        'bullmq',
        '--redis',
        redis.url,
        '--remote',
        url,
        '--jobs',
        '2',
        '--agents',
        agents,
        '--builder',
        'b',
        '--reviewers',
        'r1,r2',
      ],
      {
        cwd: repo,
        env,
      },
    );
    // The same slice run by the local runner in a clone of its own, meanwhile; compared below.
    const localRun = runLocal(remote, file, agents, 2);
    localRun.catch(() => undefined);
    assert.ok((await ready).includes(`remote ${url}`));
    const end = await engine.exited;
    assert.is(end.code, 0, `${engine.err()}\n${m1.err()}\n${sshd.log()}`);
    assert.match(engine.err(), /ball x: round 1 \(worker m1\): receipt 1/);
    assert.match(engine.err(), /ball y: round 1 \(worker m1\): receipt 1/);
    // Everything went through sshd: the worker cloned the ssh URL, the engine pushed to it and fetched from it.
    assert.is(git(join(m1.dir, 'w', 'repo.git'), 'config', 'remote.origin.url').trim(), url);
    assert.ok(
      sshd
        .log()
        .split('\n')
        .filter((l) => l.includes(`Accepted publickey for ${sshd.user} from 127.0.0.1`)).length >= 4,
      sshd.log(),
    );
    for (const id of ['x', 'y'])
      assert.is(git(remote, 'rev-parse', `leap/far/${id}`), git(repo, 'rev-parse', `leap/far/${id}`), id);
    assert.is(readLeap<{ worker: string }>(repo, 'far', 'y', 'round-1.json')?.worker, 'm1');

    const local = await localRun;
    assert.is(local.summary.receipt, 1);
    assert.is(spineTree(repo, 'far'), spineTree(local.repo, 'far'), 'the same spine tree');
    assert.equal(receiptsOf(repo, 'far', ['x', 'y']), receiptsOf(local.repo, 'far', ['x', 'y']));
  } finally {
    await stopAll(redis, m1);
    await sshd.stop();
  }
});

test('no sshd: the test fails, saying what to install', async () => {
  try {
    await startSshd(join(makeTempDir('leap-nosshd-'), 'sshd'));
    assert.unreachable('started');
  } catch (error) {
    assert.match(
      (error as Error).message,
      /^\/.*\/sshd is missing: the ssh-remote test needs openssh-server \(\.ci\/run installs it: apt-get install openssh-server\)$/,
    );
  }
});

test.run();
