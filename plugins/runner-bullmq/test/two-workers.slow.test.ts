import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { slicePaths } from '@leap/core';
import { cleanupTempDirs, git, hostileTitles } from '@leap/test-utils';
import {
  ball,
  contentProof,
  eventsOf,
  readLeap,
  receiptsOf,
  runLocal,
  runQueued,
  setupRemote,
  spawnWorker,
  spineTree,
  startRedis,
  stopAll,
  writeAgents,
  writeSlice,
} from './helpers.js';

const BASE = { 'src/a.txt': 'old a\n', 'README.md': '# repo\n' };
const hostile = hostileTitles(3, 15)[1] as string;

/** Four balls: a, b and c on their own; d after a and b, needing both. */
function fourBalls(dir: string) {
  return writeSlice(dir, {
    id: 'quad',
    balls: [
      ball('a', ['src/a.txt'], BASE, {
        goal: `ball a: ${hostile}`,
        proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) },
      }),
      ball('b', ['src/b.txt'], BASE, { proof: { argv: contentProof({ 'src/b.txt': 'B\n' }) } }),
      ball('c', ['src/c.txt'], BASE, { proof: { argv: contentProof({ 'src/c.txt': `C ${hostile}\n` }) } }),
      ball('d', ['src/d.txt'], BASE, {
        deps: ['a', 'b'],
        proof: { argv: contentProof({ 'src/d.txt': 'D\n', 'src/a.txt': 'A\n', 'src/b.txt': 'B\n' }) },
      }),
    ],
  });
}

const PLAN = {
  a: { '*': { sleep_ms: 400, edits: [{ path: 'src/a.txt', content: 'A\n' }] } },
  b: { '*': { sleep_ms: 400, edits: [{ path: 'src/b.txt', content: 'B\n' }] } },
  c: {
    1: { edits: [{ path: 'src/c.txt', content: 'not yet\n' }] },
    '*': { sleep_ms: 200, edits: [{ path: 'src/c.txt', content: `C ${hostile}\n` }] },
  },
  d: { '*': { edits: [{ path: 'src/d.txt', content: 'D\n' }] } },
};

const test = suite('bullmq runner: two workers');
test.after.each(cleanupTempDirs);

test('two workers build a slice of four balls (one after two others): the same spine tree and receipts as a local run, each round naming its worker', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(BASE);
  const file = fourBalls(dir);
  const agents = writeAgents(dir, PLAN);
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents]);
  const m2 = spawnWorker(redis.url, `file://${remote}`, 'm2', ['--agents', agents]);
  try {
    await Promise.all([m1.waitFor(/waiting for rounds/), m2.waitFor(/waiting for rounds/)]);
    const run = runQueued(redis.url, file, repo, agents, { jobs: 4 });
    // The same slice run by the local runner in a clone of its own, meanwhile; compared below.
    const localRun = runLocal(remote, file, agents, 4);
    localRun.catch(() => undefined);
    const { lines } = run;
    const queued = await run.summary;
    assert.is(queued.receipt, 1, `${lines.join('\n')}\n${m1.err()}\n${m2.err()}`);

    const { repo: local, summary: alone } = await localRun;
    assert.is(alone.receipt, 1);
    assert.is(spineTree(repo, 'quad'), spineTree(local, 'quad'), 'the same spine tree');
    assert.equal(receiptsOf(repo, 'quad', ['a', 'b', 'c', 'd']), receiptsOf(local, 'quad', ['a', 'b', 'c', 'd']));
    assert.equal(
      queued.balls.map((b) => [b.id, b.receipt, b.rounds]),
      [
        ['a', 1, 1],
        ['b', 1, 1],
        ['c', 1, 2],
        ['d', 1, 1],
      ],
    );
    assert.is(git(repo, 'show', 'leap/quad/spine:src/c.txt'), `C ${hostile}\n`);
    assert.ok(readLeap(repo, 'quad', 'record.json') !== null, 'record.json written');
    // The engine's one worktree here, the spine's for the aggregate jury, went with its folders outside the repository.
    assert.not.ok(existsSync(dirname(slicePaths(repo, 'quad').worktrees)), 'no worktree folder left');

    // Which worker built each round: in its record and on the engine's progress line; both machines worked.
    const workers = new Set<string>();
    for (const id of ['a', 'b', 'c', 'd']) {
      const r1 = readLeap<{ worker?: string }>(repo, 'quad', id, 'round-1.json');
      assert.ok(r1?.worker === 'm1' || r1?.worker === 'm2', `${id}: ${r1?.worker}`);
      workers.add(r1.worker as string);
      assert.ok(
        lines.some((l) => l.startsWith(`ball ${id}: round 1 (worker ${r1.worker}): `)),
        id,
      );
    }
    assert.is(workers.size, 2, 'both workers built balls');
    assert.is(readLeap(local, 'quad', 'a', 'round-1.json')?.worker, undefined, 'a local round names no worker');
    // The same events as a local run: the workers' leaves (builders, jurors) land in the engine's log.
    const leaves = (r: string) =>
      eventsOf(r, 'launch')
        .map((e) => e.leaf as string)
        .filter((l) => l.startsWith('build-'))
        .sort();
    assert.equal(leaves(repo), leaves(local));
    assert.equal(eventsOf(repo, 'review').length, eventsOf(local, 'review').length);
    for (const kind of ['ball', 'round', 'receipt', 'merge'])
      assert.is(eventsOf(repo, kind).length, eventsOf(local, kind).length, kind);
    // Every ball's branch is on the shared remote, and in the engine's repository at the same commit.
    for (const id of ['a', 'b', 'c', 'd'])
      assert.is(git(remote, 'rev-parse', `leap/quad/${id}`), git(repo, 'rev-parse', `leap/quad/${id}`));
    assert.match(m1.err() + m2.err(), /quad\/c round 1: no pass/);
    assert.match(
      m1.err() + m2.err(),
      /quad\/d round 1: receipt 1 \(candidate [0-9a-f]{12}\) in \d+\.\d s; pushed leap\/quad\/d at [0-9a-f]{12}/,
    );
  } finally {
    const ends = await stopAll(redis, m1, m2);
    assert.equal(
      ends.map((e) => e.code),
      [0, 0],
      m1.err() + m2.err(),
    );
  }
  assert.match(m1.err(), /leap worker: SIGTERM: taking no more jobs/);
  assert.match(m1.err(), /leap worker: m1: stopped/);
  for (const m of [m1, m2]) assert.not.match(m.err(), /does not answer/, 'a Redis that answers is waited for');
  // A worker gives back every worktree it made.
  for (const m of [m1, m2])
    assert.is(
      git(join(m.dir, 'w', 'repo.git'), 'worktree', 'list')
        .trim()
        .split('\n').length,
      1,
    );
});

test.run();
