// scanProcessesSince: a leaf's tree read from the pids numbered since its leader, on real processes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { waitFor } from '@leap/test-utils';
import { environHasKey, environKey, readForkCount, scanProcesses, scanProcessesSince } from '../src/proc-scan.js';
import { killStrays, track } from './helpers.js';

test.after.each(() => killStrays());

const lastPid = () => Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'latin1'));

test('the leader, its session and every descendant; no process numbered before the leader', async () => {
  const leader = spawn('bash', ['-c', 'sleep 30 & setsid sleep 30 & wait'], { detached: true, stdio: 'ignore' });
  const pid = leader.pid as number;
  track(pid);
  const forks = readForkCount();
  assert.ok(forks !== null && forks > 0, "this machine's /proc/stat counts forks");
  const tree = await waitFor(() => {
    const found = scanProcessesSince(pid, forks).filter((p) => p.pid === pid || p.ppid === pid);
    if (found.length === 3) track(...found.map((p) => p.pid));
    return found.length === 3 ? found : null;
  });
  assert.ok(tree !== null, 'the leader and both children, the one in a session of its own too');
  const since = scanProcessesSince(pid, forks);
  assert.not.ok(
    since.some((p) => p.pid === process.pid),
    'this test process is older than the leader',
  );
  // Numbered since the leader, cyclically: a machine with a small pid_max (32768 here) can come round to low
  // numbers while the test runs, and then the tree goes on below the leader's number.
  const last = lastPid();
  assert.ok(
    since.every((p) => (last >= pid ? p.pid >= pid && p.pid <= last : p.pid >= pid || p.pid <= last)),
    'only pids numbered since the leader',
  );
  assert.ok(scanProcesses().length > since.length, 'fewer stat files read than a whole scan');
});

test('every process when the numbers may have come round, or when /proc cannot say where they stand', () => {
  const forks = readForkCount();
  const all = (procs: { pid: number }[]) => procs.some((p) => p.pid === process.pid) && procs.some((p) => p.pid === 1);
  // The highest pid there is stands for a leader numbered after the last pid handed out (last + 1 would race
  // with every fork on a busy machine: once another process takes it, the numbers have not wrapped at all).
  const highest = Number(readFileSync('/proc/sys/kernel/pid_max', 'latin1')) - 1;
  // Every process numbered up to the last pid: pid 1, and a process started just before (not this test's own,
  // which a machine with a small pid_max may have numbered above the last pid since, having come round). Again
  // when the numbers came round during the look.
  let wrappedAll = false;
  for (let attempt = 0; attempt < 3 && !wrappedAll; attempt++) {
    const witness = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    track(witness.pid as number);
    assert.ok(lastPid() < highest, 'this machine has not numbered up to its highest pid');
    const procs = scanProcessesSince(highest, forks);
    if (lastPid() < (witness.pid as number)) continue;
    wrappedAll = procs.some((p) => p.pid === witness.pid) && procs.some((p) => p.pid === 1);
    assert.ok(wrappedAll, 'a leader numbered after the last pid: the numbers wrapped since');
  }
  assert.ok(wrappedAll, 'the numbers came round during each of three looks');
  assert.ok(all(scanProcessesSince(process.pid + 1, null)), 'no fork count at the start');
  assert.ok(all(scanProcessesSince(process.pid + 1, (forks as number) - 10_000_000)), 'more forks since than pids');
});

test('an environment that reads empty is told apart from one without the marker', async () => {
  const bare = spawn('env', ['-i', 'sleep', '30'], { detached: true, stdio: 'ignore' });
  const marked = spawn('sleep', ['30'], { detached: true, stdio: 'ignore', env: { ...process.env, LEAP_LEAF_x: '1' } });
  track(bare.pid as number, marked.pid as number);
  await waitFor(
    () =>
      readFileSync(`/proc/${bare.pid}/comm`, 'latin1').startsWith('sleep') &&
      readFileSync(`/proc/${marked.pid}/comm`, 'latin1').startsWith('sleep'),
  );
  assert.is(environKey(bare.pid as number, 'LEAP_LEAF_x'), null, 'empty: started with none (or caught mid-exec)');
  assert.is(environHasKey(bare.pid as number, 'LEAP_LEAF_x'), false);
  assert.equal(
    [environKey(marked.pid as number, 'LEAP_LEAF_x'), environKey(marked.pid as number, 'LEAP_LEAF_y')],
    [true, false],
  );
  assert.is(environKey(2 ** 22 + 1, 'LEAP_LEAF_x'), false, 'a process that is gone');
});

test.run();
