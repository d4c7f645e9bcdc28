import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, waitFor } from '@leap/test-utils';
import {
  eventsOf,
  gateFile,
  openGate,
  readLeap,
  runQueued,
  setupRemote,
  spawnWorker,
  spineSubjects,
  startRedis,
  stopAll,
  testEnv,
  TWO_BALLS_BASE,
  twoBalls,
} from './helpers.js';

const test = suite('bullmq runner: a worker killed mid-ball');
test.after.each(cleanupTempDirs);

/** The processes whose working folder is under `dir` (a killed worker's leaves work in its checkouts). */
function processesUnder(dir: string): { pid: number; cwd: string }[] {
  const root = realpathSync(dir);
  const out: { pid: number; cwd: string }[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cwd = readlinkSync(`/proc/${d}/cwd`);
      if (cwd === root || cwd.startsWith(`${root}/`)) out.push({ pid: Number(d), cwd });
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !/^\S+ \S+ [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/\(.*\)/s, 'x'));
  } catch {
    return false;
  }
};

for (const sandbox of ['off', 'on'] as const)
  test(`a worker SIGKILLed in the middle of a ball (${sandbox === 'off' ? 'unsandboxed, LEAP_SANDBOX=off' : 'sandboxed'}): no process of its round outlives it; that round only is lost, the other worker builds it, nothing merged twice`, async () => {
    const redis = await startRedis();
    const { remote, repo, dir } = setupRemote(TWO_BALLS_BASE);
    // x's builders wait at a gate opened once m1 is dead: m1 cannot finish x first, however slow the machine.
    const gate = gateFile(dir, 'x');
    const { file, agents } = twoBalls(dir, 'dies', {}, true, { x: gate });
    const m1 = spawnWorker(
      redis.url,
      remote,
      'm1',
      ['--agents', agents, '--jobs', '2'],
      testEnv({ LEAP_SANDBOX: sandbox }),
    );
    let m2: ReturnType<typeof spawnWorker> | null = null;
    try {
      await m1.waitFor(/waiting for rounds/);
      const { summary: running, lines } = runQueued(redis.url, file, repo, agents, { jobs: 2 });
      await m1.waitFor(/dies\/x round 1: taken/);
      // m2 starts now, while m1's builder leaf starts (y, after x, is not queued yet: m2 has nothing to take).
      m2 = spawnWorker(redis.url, remote, 'm2', ['--agents', agents]);
      const events = join(m1.dir, 'w', 'state', 'dies', 'x', 'events.jsonl');
      // The builder leaf's pid, as its supervisor's launch line says (bwrap's, sandboxed).
      const leaf = await waitFor(
        () =>
          existsSync(events)
            ? readFileSync(events, 'utf8')
                .split('\n')
                .flatMap((l) =>
                  l.includes('"launch"') ? [JSON.parse(l) as { leaf: string; pid: number; sandbox?: string }] : [],
                )
                .find((e) => e.leaf === 'build-x-1')
            : undefined,
        10_000,
        'the builder leaf runs',
      );
      assert.is(leaf.sandbox, sandbox === 'off' ? 'off' : 'bwrap');
      assert.ok(alive(leaf.pid));
      assert.ok(processesUnder(m1.dir).length > 0, "the leaf works in the worker's checkout");
      await m2.waitFor(/waiting for rounds/);
      m1.child.kill('SIGKILL');
      assert.is((await m1.exited).signal, 'SIGKILL');
      // Before the gate opens (the builder waits on it for ever): nothing of m1's round runs on.
      await waitFor(
        () => (processesUnder(m1.dir).length === 0 && !alive(leaf.pid) ? true : null),
        10_000,
        `no process left under ${m1.dir}: ${JSON.stringify(processesUnder(m1.dir))}`,
      );
      openGate(gate);
      const summary = await running;
      assert.is(summary.receipt, 1, `${lines.join('\n')}\n${m2.err()}`);
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
      assert.equal(spineSubjects(repo, 'dies'), [
        'leap: merge y onto the spine of dies',
        'leap: merge x onto the spine of dies',
        'initial',
      ]);
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
    // m2 starts now: it may build y meanwhile (m1 builds one round at a time), and x once m1 has handed it back.
    m2 = spawnWorker(redis.url, remote, 'm2', ['--agents', agents]);
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
    const summary = await running;
    assert.is(summary.receipt, 1, `${lines.join('\n')}\n${m2.err()}`);
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
