// /proc snapshots, a leaf's tree (session, parentage, marker) and the kill sequence, on real process trees.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { cleanupTempDirs, isAlive, makeTempDir, waitFor } from '@leap/test-utils';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  bytesWritten,
  environHasKey,
  isDeadState,
  isGone,
  parseStatFields,
  readProc,
  recentProcesses,
  scanProcesses,
} from '../src/proc-scan.js';
import { LeafTree, killTree, signalTree, type Leader } from '../src/leaf-tree.js';
import { track, killStrays } from './helpers.js';

test.after.each(() => killStrays());
test.after(() => cleanupTempDirs());

const MARKER = 'LEAP_LEAF_testmarker';

function leaderOf(child: ChildProcess): Leader {
  return {
    pid: child.pid as number,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    kill: (signal) => {
      child.kill(signal);
    },
  };
}

// A shell leaf in a session of its own that writes the pids it starts to `file`.
function startTree(
  script: string,
  env: NodeJS.ProcessEnv = {},
): { child: ChildProcess; file: string; pids: () => number[] } {
  const dir = makeTempDir();
  const file = join(dir, 'pids');
  const child = spawn('sh', ['-c', script, 'sh', file], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, [MARKER]: '1', ...env },
  });
  track(child.pid as number);
  const pids = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : []);
  return { child, file, pids };
}

function selfStart(): number {
  return readProc(process.pid)?.starttime ?? 0;
}

test('scanProcesses / readProc: this process is listed with its session, group and start time', () => {
  const me = readProc(process.pid);
  assert.ok(me !== null);
  assert.is(me.pid, process.pid);
  assert.is(me.ppid, process.ppid);
  assert.ok(me.starttime > 0);
  assert.ok(scanProcesses().some((p) => p.pid === process.pid && p.sid === me.sid));
  assert.is(readProc(2 ** 22 + 1), null);
});

test('recentProcesses: a snapshot young enough is shared; an older one is taken again and sees new processes', async () => {
  const first = recentProcesses(60_000);
  assert.is(recentProcesses(60_000), first);
  const child = spawn('sleep', ['5'], { stdio: 'ignore' });
  try {
    await new Promise((r) => setTimeout(r, 5));
    const fresh = recentProcesses(0);
    assert.is.not(fresh, first);
    assert.ok(fresh.some((p) => p.pid === child.pid));
    assert.not.ok(first.some((p) => p.pid === child.pid));
  } finally {
    child.kill('SIGKILL');
  }
});

test('parseStatFields / isDeadState / isGone: fields after the command name; Z and X are dead; PF_EXITING is gone', () => {
  const fields = 'S 1 2 3 0 -1 4194368 0 0 0 0 7 8 0 0 20 0 1 0 555'.split(' ');
  assert.equal(parseStatFields(9, fields), {
    pid: 9,
    ppid: 1,
    pgid: 2,
    sid: 3,
    state: 'S',
    starttime: 555,
    cpu: 15,
    exiting: false,
  });
  assert.is(parseStatFields(9, ['S']), null);
  assert.ok(isDeadState('Z') && isDeadState('X') && !isDeadState('S') && !isDeadState('T'));
  // A sandbox's pid 1 as /proc showed it just after bwrap exited: D, reparented to 1, flags 0x40014c (PF_EXITING).
  const exiting = parseStatFields(9, 'D 1 2 3 0 -1 4194636 0 0 0 0 7 8 0 0 20 0 1 0 555'.split(' '));
  assert.is(exiting?.exiting, true);
  assert.ok(exiting !== null && isGone(exiting) && isGone({ state: 'Z', exiting: false }));
  assert.not.ok(isGone({ state: 'D', exiting: false }));
});

test('environHasKey / bytesWritten: a whole variable of the start-up environment; bytes written so far', async () => {
  const { child } = startTree('echo hello; exec sleep 30', { OTHER_LEAP_LEAF_testmarker: '1' });
  await waitFor(() => readProc(child.pid as number)?.state === 'S', 5000);
  assert.ok(environHasKey(child.pid as number, MARKER));
  assert.not.ok(environHasKey(child.pid as number, 'LEAP_LEAF_testmark'));
  assert.not.ok(environHasKey(child.pid as number, 'NO_SUCH_VARIABLE'));
  assert.not.ok(environHasKey(2 ** 22 + 1, MARKER));
  // An environment far larger than the reused read buffer is read whole.
  const { child: big } = startTree('exec sleep 30', { HUGE: 'x'.repeat(100_000), LEAP_LEAF_after_huge: '1' });
  await waitFor(() => readProc(big.pid as number)?.state === 'S', 5000);
  assert.ok(environHasKey(big.pid as number, 'LEAP_LEAF_after_huge'));
  big.kill('SIGKILL');
  assert.is(bytesWritten(2 ** 22 + 1), 0);
  assert.ok(bytesWritten(process.pid) > 0);
  child.kill('SIGKILL');
});

// ---

test('LeafTree: session members, a setsid child found by parentage, and a marked escapee whose parent is gone', async () => {
  const notBefore = selfStart();
  const { child, pids } = startTree(
    'sleep 30 & echo $! >> "$1"; setsid sleep 31 & echo $! >> "$1"; (setsid sh -c "echo \\$\\$ >> $1; exec sleep 32" &); wait',
  );
  await waitFor(() => pids().length === 3, 5000);
  const [inSession, setsidChild, orphan] = pids() as [number, number, number];
  track(inSession, setsidChild, orphan);
  const tree = new LeafTree(child.pid as number, notBefore, MARKER);
  await waitFor(() => readProc(orphan)?.ppid !== child.pid, 5000);
  // setsid(2) runs after the shell echoes the pid: until then the child is still a member of the leaf's session.
  await waitFor(() => readProc(setsidChild)?.sid === setsidChild, 5000);
  const found = tree.live();
  const members = found.members.map((p) => p.pid).sort();
  assert.equal(
    members,
    [child.pid as number, inSession].sort((a, b) => a - b),
  );
  assert.equal(
    found.escaped.map((p) => p.pid).sort((a, b) => a - b),
    [setsidChild, orphan].sort((a, b) => a - b),
  );
  const progress = tree.progress();
  assert.match(progress, /^\d+:\d+:4$/);
  child.kill('SIGKILL');
});

test('LeafTree: an escapee without the marker is still known once seen while its parent lived', async () => {
  const notBefore = selfStart();
  const { child, pids } = startTree('env -u LEAP_LEAF_testmarker setsid sleep 30 & echo $! >> "$1"; sleep 0.3; exit 0');
  await waitFor(() => pids().length === 1, 5000);
  const [escapee] = pids() as [number];
  track(escapee);
  const tree = new LeafTree(child.pid as number, notBefore, MARKER);
  await waitFor(() => readProc(escapee)?.sid === escapee, 5000);
  tree.observe(scanProcesses());
  await waitFor(() => child.exitCode !== null, 5000);
  assert.equal(
    tree.live().escaped.map((p) => p.pid),
    [escapee],
  );
  process.kill(escapee, 'SIGKILL');
});

// ---

test('killTree: TERM and CONT first; a tree that obeys is gone within the grace, with no SIGKILL', async () => {
  const notBefore = selfStart();
  const { child, pids } = startTree('sleep 30 & echo $! >> "$1"; sleep 30 & echo $! >> "$1"; wait');
  await waitFor(() => pids().length === 2, 5000);
  const tree = new LeafTree(child.pid as number, notBefore, MARKER);
  const outcome = await killTree(tree, leaderOf(child), { graceMs: 5000 });
  assert.is(outcome.escalated, false);
  assert.is(outcome.leftovers, 2);
  assert.equal(outcome.unkillable, []);
  assert.equal(pids().filter(isAlive), []);
  assert.is(child.signalCode, 'SIGTERM');
});

test('killTree: a tree that ignores TERM is SIGKILLed after the grace; stopped members too', async () => {
  const notBefore = selfStart();
  const { child, pids } = startTree('trap "" TERM; sleep 30 & echo $! >> "$1"; kill -STOP $!; wait');
  await waitFor(() => pids().length === 1, 5000);
  const tree = new LeafTree(child.pid as number, notBefore, MARKER);
  const outcome = await killTree(tree, leaderOf(child), { graceMs: 200 });
  assert.is(outcome.escalated, true);
  assert.equal(pids().filter(isAlive), []);
  assert.is(child.signalCode, 'SIGKILL');
});

test('killTree: grace 0 sweeps at once; an escapee in another session is ended and counted', async () => {
  const notBefore = selfStart();
  const { child, pids } = startTree('setsid sleep 30 & echo $! >> "$1"; wait');
  await waitFor(() => pids().length === 1 && readProc(pids()[0] as number)?.sid === pids()[0], 5000);
  const tree = new LeafTree(child.pid as number, notBefore, MARKER);
  const outcome = await killTree(tree, leaderOf(child), { graceMs: 0 });
  assert.is(outcome.escaped, 1);
  assert.equal(pids().filter(isAlive), []);
});

test('killTree: an already-gone tree needs nothing', async () => {
  const notBefore = selfStart();
  const { child } = startTree('exit 0');
  await new Promise((r) => child.on('exit', r));
  const tree = new LeafTree(child.pid as number, notBefore, MARKER);
  assert.equal(await killTree(tree, leaderOf(child), { graceMs: 1000 }), {
    leftovers: 0,
    escaped: 0,
    unkillable: [],
    escalated: false,
  });
});

test('killTree: a process that cannot be signalled is reported unkillable after the cap, never a hang (F36)', async () => {
  const notBefore = selfStart();
  const { child } = startTree('exec sleep 30');
  await waitFor(() => readProc(child.pid as number) !== null, 5000);
  const tree = new LeafTree(child.pid as number, notBefore, MARKER);
  // A leader whose signals go nowhere stands in for a process in uninterruptible sleep.
  const deaf: Leader = { pid: child.pid as number, exited: () => false, kill: () => {} };
  const realLive = tree.live.bind(tree);
  tree.live = () => {
    const found = realLive();
    return {
      members:
        found.members.length > 0
          ? found.members
          : [
              {
                pid: 2 ** 22 + 1,
                ppid: 1,
                pgid: 1,
                sid: tree.sid,
                state: 'D',
                starttime: notBefore,
                cpu: 0,
                exiting: false,
              },
            ],
      escaped: [],
    };
  };
  const outcome = await killTree(tree, deaf, { graceMs: 0, capMs: 300 });
  assert.equal(outcome.unkillable, [2 ** 22 + 1]);
  child.kill('SIGKILL');
});

test('signalTree: signals the groups of the members, each member, and the leader through its handle', async () => {
  const notBefore = selfStart();
  const { child, pids } = startTree('sleep 30 & echo $! >> "$1"; wait');
  await waitFor(() => pids().length === 1, 5000);
  const tree = new LeafTree(child.pid as number, notBefore, MARKER);
  signalTree(tree.live(), leaderOf(child), 'SIGKILL');
  await waitFor(
    () => pids().filter(isAlive).length === 0 && child.exitCode === null && child.signalCode !== null,
    5000,
  );
  assert.equal(pids().filter(isAlive), []);
});

test.run();
