// `leap slice clean FILE --runner bullmq`: the slice's branches on the shared remote and its jobs in the queue go
// with its worktrees and local branches; another slice's stay; bad runner options remove nothing.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { cleanupTempDirs, git } from '@leap/test-utils';
import { Redis } from 'ioredis';
import { PREFIX, QUEUE } from '../src/index.js';
import {
  ball,
  contentProof,
  runQueued,
  setupRemote,
  spawnLeap,
  spawnWorker,
  startRedis,
  stopAll,
  testEnv,
  writeAgents,
  writeSlice,
} from './helpers.js';

const BASE = { 'src/a.txt': 'old a\n' };

const test = suite('leap slice clean --runner bullmq');
test.after.each(cleanupTempDirs);

test("after a run: the remote's leap/SLICE/* branches and the slice's finished jobs are removed; another slice's are kept", async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(BASE);
  const slices = ['gone', 'kept'].map((id) =>
    writeSlice(
      dir,
      { id, balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })] },
      `${id}.json`,
    ),
  );
  const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents]);
  const listen = new Redis(redis.url, { maxRetriesPerRequest: null });
  let m2: ReturnType<typeof spawnWorker> | null = null;
  try {
    await m1.waitFor(/waiting for rounds/);
    for (const file of slices) {
      const { summary, lines } = runQueued(redis.url, file, repo, agents, {});
      assert.is((await summary).receipt, 1, lines.join('\n'));
    }
    const remoteHeads = () =>
      git(remote, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/leap')
        .trim()
        .split('\n')
        .filter((l) => l !== '')
        .sort();
    assert.equal(remoteHeads(), ['leap/gone/a', 'leap/kept/a']);
    // A worker's clone names nothing of either slice (no branch, no fetched ref): clean has nothing to remove there.
    // m2 clones now, when the remote holds both slices' branches; m1 cloned before any.
    m2 = spawnWorker(redis.url, remote, 'm2', ['--agents', agents]);
    // Bad input first, meanwhile (it changes nothing, as is checked below): no queue secret.
    const refused = spawnLeap(
      ['slice', 'clean', slices[0] as string, '--runner', 'bullmq', '--redis', redis.url, '--remote', remote],
      { cwd: repo, env: testEnv({ LEAP_QUEUE_SECRET: '' }) },
    );
    await m2.waitFor(/waiting for rounds/);
    for (const machine of [m1, m2]) {
      const cloneRefs = git(join(machine.dir, 'w', 'repo.git'), 'for-each-ref', '--format=%(refname)')
        .trim()
        .split('\n');
      assert.equal(
        cloneRefs.filter((r) => /leap/.test(r)),
        [],
        `the worker's clone keeps no ref of a slice: ${cloneRefs.join(', ')}`,
      );
      assert.ok(cloneRefs.includes('refs/heads/main'), 'the default branch, which it cloned');
    }
    const completed = async () => (await listen.zrange(`${PREFIX}:${QUEUE}:completed`, 0, -1)).sort();
    assert.is((await completed()).length, 2);

    // The bad input (no queue secret) refused: nothing is removed, here or on the remote.
    assert.is((await refused.exited).code, 2, refused.err());
    assert.match(refused.err(), /the queue needs a secret/);
    assert.equal(remoteHeads(), ['leap/gone/a', 'leap/kept/a']);
    assert.ok(git(repo, 'for-each-ref', 'refs/heads/leap/gone').trim() !== '', 'the local branches stay too');

    const clean = spawnLeap(
      ['slice', 'clean', slices[0] as string, '--runner', 'bullmq', '--redis', redis.url, '--remote', remote, '--json'],
      { cwd: repo },
    );
    assert.is((await clean.exited).code, 0, clean.err());
    const out = JSON.parse(clean.out()) as { slice: string; branches: string[]; runner: string[] };
    assert.is(out.slice, 'gone');
    assert.ok(out.branches.includes('leap/gone/spine'), clean.out());
    assert.ok(out.runner.includes(`deleted the branch leap/gone/a on the remote ${remote}`), clean.out());
    assert.ok(
      out.runner.some((l) => /^removed the completed job gone\.a\.r1\./.test(l)),
      clean.out(),
    );
    assert.equal(remoteHeads(), ['leap/kept/a'], "only the other slice's branch is left on the remote");
    const left = await completed();
    assert.is(left.length, 1);
    assert.match(left[0] as string, /^kept\.a\.r1\./);
    assert.is(git(repo, 'for-each-ref', 'refs/heads/leap/gone').trim(), '', 'the local branches are gone');
  } finally {
    listen.disconnect();
    await stopAll(redis, m1, m2);
  }
});

test.run();
