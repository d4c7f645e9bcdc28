import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, waitFor } from '@leap/test-utils';
import { eventsOf, gateFile, openGate, readLeap, runQueued, setupRemote, spawnWorker, spineSubjects, startRedis, stopAll, TWO_BALLS_BASE, twoBalls } from './helpers.js';

const test = suite('bullmq runner: a worker killed mid-ball');
test.after.each(cleanupTempDirs);

test('a worker SIGKILLed in the middle of a ball costs that round only: the other worker builds it, nothing merged twice', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(TWO_BALLS_BASE);
  // x's builders wait at a gate opened once m1 is dead: m1 cannot finish x first, however slow the machine.
  const gate = gateFile(dir, 'x');
  const { file, agents } = twoBalls(dir, 'dies', {}, true, { x: gate });
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents, '--jobs', '2']);
  let m2: ReturnType<typeof spawnWorker> | null = null;
  try {
    await m1.waitFor(/waiting for rounds/);
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents, { jobs: 2 });
    await m1.waitFor(/dies\/x round 1: taken/);
    assert.ok(await waitFor(() => existsSync(join(m1.dir, 'w', 'state', 'dies', 'x', 'build-x-1.pid')), 10_000), 'the builder leaf runs');
    m2 = spawnWorker(redis.url, remote, 'm2', ['--agents', agents]);
    await m2.waitFor(/waiting for rounds/);
    m1.child.kill('SIGKILL');
    assert.is((await m1.exited).signal, 'SIGKILL');
    openGate(gate);
    const summary = await running;
    assert.is(summary.exitCode, 0, `${lines.join('\n')}\n${m2.err()}`);
    assert.equal(
      summary.balls.map((b) => [b.id, b.receipt, b.rounds]),
      [
        ['x', 1, 1],
        ['y', 1, 1],
      ],
    );
    // The round the dead worker held went to m2 by BullMQ's stalled check; one round recorded, by m2.
    assert.is(readLeap<{ worker: string }>(repo, 'dies', 'x', 'round-1.json')?.worker, 'm2');
    assert.is(readLeap(repo, 'dies', 'x', 'round-2.json'), null);
    assert.match(m2.err(), /dies\/x round 1: taken \(job [^)]*, again\)/);
    assert.match(m2.err(), /dies\/x round 1: receipt 1/);
    assert.not.match(m1.err(), /dies\/x round 1: receipt/);
    // Each ball merged once.
    assert.equal(spineSubjects(repo, 'dies'), ['leap: merge y onto the spine of dies', 'leap: merge x onto the spine of dies', 'initial']);
    assert.is(eventsOf(repo, 'merge').length, 2);
    assert.is(eventsOf(repo, 'round').filter((e) => e.ball === 'x').length, 1);
    assert.is(git(repo, 'show', 'leap/dies/spine:src/y.txt'), 'Y\n');
  } finally {
    await stopAll(redis, m2, m1);
  }
});

test('a worker sent TERM while its builder leaf runs: the leaf is ended, the round handed back and built by another worker; it exits 0', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(TWO_BALLS_BASE);
  // x's builders wait at a gate opened once m1 has exited: its leaf is surely running when TERM comes.
  const gate = gateFile(dir, 'x');
  const { file, agents } = twoBalls(dir, 'term', {}, false, { x: gate });
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents]);
  let m2: ReturnType<typeof spawnWorker> | null = null;
  try {
    await m1.waitFor(/waiting for rounds/);
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents, { jobs: 2 });
    await m1.waitFor(/term\/x round 1: taken/);
    const pid = join(m1.dir, 'w', 'state', 'term', 'x', 'build-x-1.pid');
    assert.ok(await waitFor(() => existsSync(pid), 10_000), 'the builder leaf runs');
    m1.child.kill('SIGTERM');
    assert.is((await m1.exited).code, 0, m1.err());
    // The worker says it was stopped (not the engine): the reason is the worker's own.
    assert.match(
      m1.err(),
      /SIGTERM: taking no more jobs[\s\S]*term\/x round 1: handed back \(this worker was asked to stop and its builder leaf build-x-1 was ended\); another worker builds the round[\s\S]*m1: stopped/,
      m1.err(),
    );
    assert.not.match(m1.err(), /the engine was asked to stop/);
    assert.not.match(m1.err(), /term\/x round 1: receipt/);
    assert.not.match(m1.err(), /term\/y round 1: taken/);
    openGate(gate);
    m2 = spawnWorker(redis.url, remote, 'm2', ['--agents', agents]);
    const summary = await running;
    assert.is(summary.exitCode, 0, `${lines.join('\n')}\n${m2.err()}`);
    assert.equal(
      summary.balls.map((b) => [b.id, b.receipt, b.rounds]),
      [
        ['x', 1, 1],
        ['y', 1, 1],
      ],
    );
    assert.equal(
      ['x', 'y'].map((id) => readLeap<{ worker: string }>(repo, 'term', id, 'round-1.json')?.worker),
      ['m2', 'm2'],
    );
    // Nothing of the ended leaf reached the remote: its ball branch holds m2's candidate.
    assert.is(git(remote, 'show', 'leap/term/x:src/x.txt'), 'X\n');
  } finally {
    await stopAll(redis, m2, m1);
  }
});

test.run();
