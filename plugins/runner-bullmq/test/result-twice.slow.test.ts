import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, waitFor } from '@leap/test-utils';
import { Redis } from 'ioredis';
import { PREFIX, QUEUE, jobId } from '../src/index.js';
import {
  eventsOf,
  gateFile,
  openGate,
  readLeap,
  receiptsOf,
  runLocal,
  runQueued,
  setupRemote,
  spawnWorker,
  spineSubjects,
  spineTree,
  startRedis,
  stopAll,
  TWO_BALLS_BASE,
  twoBalls,
  until,
} from './helpers.js';

const test = suite('bullmq runner: a round result that arrives twice');
test.after.each(cleanupTempDirs);

test('a worker paused (SIGSTOP) past its lock: the round goes to another worker, both finish it, the same result event is replayed; the round is recorded and merged once', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(TWO_BALLS_BASE);
  // x's builders wait for gate x, so m1 is paused while its builder leaf runs; y's (after x) wait for gate y, so the
  // engine still runs, and listens, when the paused worker finishes x. No step assumes how fast the machine is.
  const gates = { x: gateFile(dir, 'x'), y: gateFile(dir, 'y') };
  const { file, agents } = twoBalls(dir, 'twice', {}, true, gates);
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents]);
  let m2: ReturnType<typeof spawnWorker> | null = null;
  const listen = new Redis(redis.url, { maxRetriesPerRequest: null });
  try {
    await m1.waitFor(/waiting for rounds/);
    let ended = false;
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents, { jobs: 2 });
    // The same slice run by the local runner in a clone of its own, meanwhile (its builders wait at the same gates);
    // compared below.
    const local = runLocal(remote, file, agents, 2);
    local.catch(() => undefined);
    void running.then(
      () => {
        ended = true;
      },
      () => {
        ended = true;
      },
    );
    await m1.waitFor(/twice\/x round 1: taken/);
    assert.ok(
      await waitFor(() => existsSync(join(m1.dir, 'w', 'state', 'twice', 'x', 'build-x-1.pid')), 10_000),
      'the builder leaf runs',
    );
    // Paused, not dead: its builder leaf runs on, but no lock is renewed, so BullMQ's stalled check gives the job away.
    m1.child.kill('SIGSTOP');
    openGate(gates.x);
    m2 = spawnWorker(redis.url, remote, 'm2', ['--agents', agents]);
    await m2.waitFor(/twice\/x round 1: taken \(job [^)]*, again\)/, 30_000);
    await m2.waitFor(/twice\/x round 1: receipt 1/, 30_000);
    // m2's completion, which the engine heard, replayed on the queue's event stream.
    const id = jobId({ slice: 'twice', ball: 'x', round: 1, commit: git(repo, 'rev-parse', 'HEAD').trim() }, '');
    const stream = `${PREFIX}:${QUEUE}:events`;
    const field = (f: string[], name: string) => f[f.indexOf(name) + 1] ?? '';
    // m2 says "receipt 1" before BullMQ moves the job to completed: the event is waited for.
    const completed = await until('the completed event of x round 1 on the stream', async () =>
      (await listen.xrange(stream, '-', '+')).find(
        ([, f]) => field(f, 'event') === 'completed' && field(f, 'jobId').startsWith(id),
      ),
    );
    await listen.xadd(stream, '*', ...completed[1]);
    // The paused worker goes on: its builder leaf has ended, it finishes the round, and its result comes second.
    m1.child.kill('SIGCONT');
    const late = await m1.waitFor(/twice\/x round 1: (lost|receipt|failed)/, 30_000);
    assert.match(
      late,
      /twice\/x round 1: lost the job's lock while the round ran \(this worker was paused or cut off longer than the lock\): another worker has the round; this result is dropped, nothing pushed/,
      m1.err(),
    );
    await m1.waitFor(/job twice\.x\.r1\.[0-9a-f.]+\.b: its lock could not be renewed/, 30_000);
    assert.not.ok(ended, 'the engine was still running when the second result came');
    // y is held at its gate until here (by whichever worker took it): the engine cannot have ended.
    await until('a worker taking y round 1', () => /twice\/y round 1: taken/.test(`${m1.err()}\n${m2?.err()}`));
    assert.not.ok(ended, 'the engine still runs while y is held');
    openGate(gates.y);
    const summary = await running;
    assert.is(summary.receipt, 1, `${lines.join('\n')}\n${m1.err()}\n${m2.err()}`);
    assert.equal(
      summary.balls.map((b) => [b.id, b.receipt, b.rounds]),
      [
        ['x', 1, 1],
        ['y', 1, 1],
      ],
    );

    // Recorded once: one round record (m2's), one round event and line, one receipt, one ball in record.json, one merge.
    const round = readLeap<{ worker: string; commit: string }>(repo, 'twice', 'x', 'round-1.json');
    assert.is(round?.worker, 'm2');
    assert.is(readLeap(repo, 'twice', 'x', 'round-2.json'), null);
    for (const kind of ['round', 'receipt', 'merge'])
      assert.is(eventsOf(repo, kind).filter((e) => e.ball === 'x').length, 1, kind);
    assert.is(lines.filter((l) => l.startsWith('ball x: round 1')).length, 1, lines.join('\n'));
    const record = readLeap<{ balls: { task: string; commit: string }[] }>(repo, 'twice', 'record.json');
    assert.equal(
      record?.balls.filter((b) => b.task === 'x').map((b) => b.commit),
      [round?.commit],
    );
    assert.equal(spineSubjects(repo, 'twice'), [
      'leap: merge y onto the spine of twice',
      'leap: merge x onto the spine of twice',
      'initial',
    ]);
    // The remote's ball branch is the recorded round's, not the late worker's.
    assert.is(git(remote, 'rev-parse', 'leap/twice/x').trim(), git(repo, 'rev-parse', 'leap/twice/x').trim());

    // The same spine tree and receipts as a local run.
    const alone = await local;
    assert.is(alone.summary.receipt, 1);
    assert.is(spineTree(repo, 'twice'), spineTree(alone.repo, 'twice'));
    assert.equal(receiptsOf(repo, 'twice', ['x', 'y']), receiptsOf(alone.repo, 'twice', ['x', 'y']));
  } finally {
    listen.disconnect();
    await stopAll(redis, m2, m1);
  }
});

test.run();
