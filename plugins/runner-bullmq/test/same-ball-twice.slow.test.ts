// Two rounds of one ball on one worker at once: the engine was SIGKILLed while its round ran, and the slice is
// run again; the worker (--jobs 2) takes the rerun's round while the first still runs. Each round gets its own
// worktree and its own leaves' files: neither fails to start, neither removes the other's checkout.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git } from '@leap/test-utils';
import {
  ball,
  contentProof,
  gateFile,
  openGate,
  readLeap,
  runQueued,
  setupRemote,
  spawnLeap,
  spawnWorker,
  startRedis,
  stopAll,
  until,
  writeAgents,
  writeSlice,
} from './helpers.js';

const BASE = { 'src/x.txt': 'old x\n' };

const test = suite('bullmq runner: two rounds of one ball on one worker');
test.after.each(cleanupTempDirs);

test('a rerun after the engine was killed: the worker builds both rounds of the ball side by side, each in its own checkout; the rerun passes', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(BASE);
  const file = writeSlice(dir, {
    id: 'dup',
    balls: [ball('x', ['src/x.txt'], BASE, { proof: { argv: contentProof({ 'src/x.txt': 'X\n' }) } })],
  });
  // Every builder of x waits at the gate: the first round is still running when the rerun's is taken.
  const gate = gateFile(dir, 'both-taken');
  const agents = writeAgents(dir, { x: { '*': { wait_for: gate, edits: [{ path: 'src/x.txt', content: 'X\n' }] } } });
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents, '--jobs', '2']);
  // Stopped at the end if the test failed before it ended (a live engine would outlast the test).
  let engine: ReturnType<typeof spawnLeap> | null = null;
  try {
    // The engine starts while the worker does (it takes the round once it is up).
    const ready = m1.waitFor(/waiting for rounds/);
    engine = spawnLeap(
      [
        'slice',
        'run',
        file,
        '--runner',
        'bullmq',
        '--redis',
        redis.url,
        '--agents',
        agents,
        '--builder',
        'b',
        '--reviewers',
        'r1,r2',
      ],
      { cwd: repo },
    );
    await ready;
    await m1.waitFor(/dup\/x round 1: taken/);
    const state = join(m1.dir, 'w', 'state', 'dup');
    await until("the first round's builder leaf", () => existsSync(join(state, 'x', 'build-x-1.pid')));
    engine.child.kill('SIGKILL');
    assert.is((await engine.exited).signal, 'SIGKILL');

    const again = runQueued(redis.url, file, repo, agents);
    const taken = await until(
      "the rerun's round taken beside the first",
      () =>
        m1
          .err()
          .split('\n')
          .filter((l) => l.includes('dup/x round 1: taken')).length >= 2,
    );
    assert.ok(taken);
    // The second round's leaves have their own folder (BALL~TAG), and so its own checkout.
    const second = await until("the second round's builder leaf", () =>
      readdirSync(state).find((d) => d.startsWith('x~1-') && existsSync(join(state, d, 'build-x-1.pid'))),
    );
    assert.ok(existsSync(join(m1.dir, 'w', 'work', 'dup', second)), "the second round's own worktree");
    assert.ok(
      existsSync(join(m1.dir, 'w', 'work', 'dup', 'x', 'src', 'x.txt')),
      "the first round's worktree is still there",
    );
    openGate(gate);

    const summary = await again.summary;
    assert.is(summary.receipt, 1, `${again.lines.join('\n')}\n${m1.err()}`);
    assert.equal(
      summary.balls.map((b) => [b.id, b.receipt]),
      [['x', 1]],
    );
    assert.is(git(repo, 'show', 'leap/dup/spine:src/x.txt'), 'X\n');
    // Both rounds ran to their end: no round failed to start, none was handed back broken.
    await until(
      "both rounds' ends",
      () =>
        m1
          .err()
          .split('\n')
          .filter((l) => /dup\/x round 1: receipt 1/.test(l)).length === 2,
      60_000,
    );
    assert.not.match(m1.err(), /dup\/x round 1: failed/);
    assert.is(readLeap<{ receipt: number }>(repo, 'dup', 'x', 'result.json')?.receipt, 1);
    // The second round's checkout is given back when it ends.
    await until("the second round's checkout given back", () => !existsSync(join(m1.dir, 'w', 'work', 'dup', second)));
  } finally {
    await stopAll(redis, m1, engine);
  }
});

test.run();
