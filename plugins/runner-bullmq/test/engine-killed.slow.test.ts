import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git } from '@leap/test-utils';
import {
  ball,
  contentProof,
  eventsOf,
  gateFile,
  openGate,
  readLeap,
  runQueued,
  setupRemote,
  spawnLeap,
  spawnWorker,
  startRedis,
  stopAll,
  writeAgents,
  writeSlice,
} from './helpers.js';

const BASE = { 'src/a.txt': 'old a\n' };

const test = suite('bullmq runner: the engine killed');
test.after.each(cleanupTempDirs);

test('the engine SIGKILLed mid-slice and run again: it resumes, and nothing that passed is rebuilt', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(BASE);
  const file = writeSlice(dir, {
    id: 'again',
    balls: [
      ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } }),
      ball('slow', ['src/slow.txt'], BASE, { proof: { argv: contentProof({ 'src/slow.txt': 'S\n' }) } }),
      ball('c', ['src/c.txt'], BASE, { deps: ['a'], proof: { argv: contentProof({ 'src/c.txt': 'C\n' }) } }),
    ],
  });
  // slow's and c's builders wait at a gate opened once the engine is dead: neither can pass on the first run.
  const gate = gateFile(dir, 'first-run');
  const agents = writeAgents(dir, {
    a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } },
    slow: { '*': { wait_for: gate, edits: [{ path: 'src/slow.txt', content: 'S\n' }] } },
    c: { '*': { wait_for: gate, edits: [{ path: 'src/c.txt', content: 'C\n' }] } },
  });
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents, '--jobs', '2']);
  // Stopped at the end if the test failed before it ended (a live engine would outlast the test).
  let engine: ReturnType<typeof spawnLeap> | null = null;
  try {
    // The engine starts while the worker does (it takes the round once it is up).
    const ready = m1.waitFor(/waiting for rounds/);
    const args = [
      'slice',
      'run',
      file,
      '--runner',
      'bullmq',
      '--redis',
      redis.url,
      '--jobs',
      '2',
      '--agents',
      agents,
      '--builder',
      'b',
      '--reviewers',
      'r1,r2',
    ];
    engine = spawnLeap(args, { cwd: repo });
    await ready;
    await engine.waitFor(/ball a: merged onto leap\/again\/spine/);
    await m1.waitFor(/again\/c round 1: taken/);
    engine.child.kill('SIGKILL');
    assert.is((await engine.exited).signal, 'SIGKILL');
    assert.is(readLeap<{ receipt: number }>(repo, 'again', 'a', 'result.json')?.receipt, 1);
    assert.is(readLeap(repo, 'again', 'c', 'result.json'), null, 'c was cut off');
    openGate(gate);

    const again = runQueued(redis.url, file, repo, agents, { jobs: 2 });
    const { lines } = again;
    const summary = await again.summary;
    assert.is(summary.receipt, 1, `${lines.join('\n')}\n${m1.err()}`);
    assert.ok(
      lines.some((l) => l.startsWith('ball a: passed on an earlier run')),
      lines.join('\n'),
    );
    assert.equal(
      summary.balls.map((b) => [b.id, b.receipt, b.reused]),
      [
        ['a', 1, true],
        ['slow', 1, false],
        ['c', 1, false],
      ],
    );
    // a was built once, on the first run; its merge was not made twice.
    assert.is(
      m1
        .err()
        .split('\n')
        .filter((l) => l.includes('again/a round 1: taken')).length,
      1,
    );
    assert.is(
      git(repo, 'log', '--first-parent', '--format=%s', 'leap/again/spine')
        .trim()
        .split('\n')
        .filter((s) => s.includes('merge a ')).length,
      1,
    );
    assert.is(eventsOf(repo, 'merge').filter((e) => e.ball === 'a').length, 1);
    assert.ok(readLeap(repo, 'again', 'record.json') !== null);
  } finally {
    await stopAll(redis, m1, engine);
  }
});

test.run();
