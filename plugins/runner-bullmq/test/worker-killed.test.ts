import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, waitFor } from '@leap/test-utils';
import { runSlice } from '@leap/slice';
import { createBullmqRunner } from '../src/index.js';
import { ball, contentProof, eventsOf, readLeap, setupRemote, spawnWorker, startRedis, stop, testEnv, writeAgents, writeSlice } from './helpers.js';

const BASE = { 'src/x.txt': 'old x\n' };

const test = suite('bullmq runner: a worker killed mid-ball');
test.after.each(cleanupTempDirs);

test('a worker SIGKILLed in the middle of a ball costs that round only: the other worker builds it, nothing merged twice', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(BASE);
  const file = writeSlice(dir, {
    id: 'dies',
    balls: [
      ball('x', ['src/x.txt'], BASE, { proof: { argv: contentProof({ 'src/x.txt': 'X\n' }) } }),
      ball('y', ['src/y.txt'], BASE, { deps: ['x'], proof: { argv: contentProof({ 'src/y.txt': 'Y\n', 'src/x.txt': 'X\n' }) } }),
    ],
  });
  const agents = writeAgents(dir, {
    x: { '*': { sleep_ms: 2500, edits: [{ path: 'src/x.txt', content: 'X\n' }] } },
    y: { '*': { edits: [{ path: 'src/y.txt', content: 'Y\n' }] } },
  });
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--jobs', '2']);
  let m2: ReturnType<typeof spawnWorker> | null = null;
  try {
    await m1.waitFor(/waiting for rounds/);
    const lines: string[] = [];
    const running = runSlice({
      file, cwd: repo, env: testEnv(), jobs: 2, agentsFile: agents, builder: 'b', reviewers: ['r1', 'r2'], progress: (l) => lines.push(l),
      createRunner: (c) => createBullmqRunner({ redis: redis.url, repoRoot: c.repoRoot, stateDir: c.stateDir, env: c.env }),
    });
    await m1.waitFor(/dies\/x round 1: taken/);
    await new Promise((r) => setTimeout(r, 600));
    m2 = spawnWorker(redis.url, remote, 'm2');
    await m2.waitFor(/waiting for rounds/);
    m1.child.kill('SIGKILL');
    assert.is((await m1.exited).signal, 'SIGKILL');
    const summary = await running;
    assert.is(summary.exitCode, 0, `${lines.join('\n')}\n${m2.err()}`);
    assert.equal(summary.balls.map((b) => [b.id, b.receipt, b.rounds]), [['x', 1, 1], ['y', 1, 1]]);
    // The round the dead worker held went to m2 by BullMQ's stalled check; one round recorded, by m2.
    assert.is(readLeap<{ worker: string }>(repo, 'dies', 'x', 'round-1.json')?.worker, 'm2');
    assert.is(readLeap(repo, 'dies', 'x', 'round-2.json'), null);
    assert.match(m2.err(), /dies\/x round 1: taken \(job [^)]*, again\)/);
    assert.match(m2.err(), /dies\/x round 1: receipt 1/);
    assert.not.match(m1.err(), /dies\/x round 1: receipt/);
    // Each ball merged once.
    const merges = git(repo, 'log', '--first-parent', '--format=%s', 'leap/dies/spine').trim().split('\n');
    assert.equal(merges, ['leap: merge y onto the spine of dies', 'leap: merge x onto the spine of dies', 'initial']);
    assert.is(eventsOf(repo, 'merge').length, 2);
    assert.is(eventsOf(repo, 'round').filter((e) => e.ball === 'x').length, 1);
    assert.is(git(repo, 'show', 'leap/dies/spine:src/y.txt'), 'Y\n');
  } finally {
    if (m2 !== null) await stop(m2);
    await stop(m1);
    await redis.stop();
  }
});

test('a worker sent TERM while its builder leaf runs: the leaf is ended, the round handed back and built by another worker; it exits 0', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(BASE);
  const file = writeSlice(dir, {
    id: 'term',
    balls: [
      ball('x', ['src/x.txt'], BASE, { proof: { argv: contentProof({ 'src/x.txt': 'X\n' }) } }),
      ball('y', ['src/y.txt'], BASE, { proof: { argv: contentProof({ 'src/y.txt': 'Y\n' }) } }),
    ],
  });
  const agents = writeAgents(dir, {
    x: { '*': { sleep_ms: 3000, edits: [{ path: 'src/x.txt', content: 'X\n' }] } },
    y: { '*': { edits: [{ path: 'src/y.txt', content: 'Y\n' }] } },
  });
  const m1 = spawnWorker(redis.url, remote, 'm1');
  let m2: ReturnType<typeof spawnWorker> | null = null;
  try {
    await m1.waitFor(/waiting for rounds/);
    const lines: string[] = [];
    const running = runSlice({
      file, cwd: repo, env: testEnv(), jobs: 2, agentsFile: agents, builder: 'b', reviewers: ['r1', 'r2'], progress: (l) => lines.push(l),
      createRunner: (c) => createBullmqRunner({ redis: redis.url, repoRoot: c.repoRoot, stateDir: c.stateDir, env: c.env }),
    });
    await m1.waitFor(/term\/x round 1: taken/);
    const pid = join(m1.dir, 'w', 'state', 'term', 'x', 'build-x-1.pid');
    assert.ok(await waitFor(() => existsSync(pid), 10_000), 'the builder leaf runs');
    m1.child.kill('SIGTERM');
    assert.is((await m1.exited).code, 0, m1.err());
    assert.match(m1.err(), /SIGTERM: taking no more jobs[\s\S]*term\/x round 1: handed back \(this worker is stopping and its leaf was ended: the builder was interrupted \(the engine was asked to stop\)\); another worker builds the round[\s\S]*m1: stopped/, m1.err());
    assert.not.match(m1.err(), /term\/x round 1: receipt/);
    assert.not.match(m1.err(), /term\/y round 1: taken/);
    m2 = spawnWorker(redis.url, remote, 'm2');
    const summary = await running;
    assert.is(summary.exitCode, 0, `${lines.join('\n')}\n${m2.err()}`);
    assert.equal(summary.balls.map((b) => [b.id, b.receipt, b.rounds]), [['x', 1, 1], ['y', 1, 1]]);
    assert.equal(['x', 'y'].map((id) => readLeap<{ worker: string }>(repo, 'term', id, 'round-1.json')?.worker), ['m2', 'm2']);
    // Nothing of the ended leaf reached the remote: its ball branch holds m2's candidate.
    assert.is(git(remote, 'show', 'leap/term/x:src/x.txt'), 'X\n');
  } finally {
    if (m2 !== null) await stop(m2);
    await stop(m1);
    await redis.stop();
  }
});

test.run();
