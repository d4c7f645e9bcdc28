// leap-supervise ends what it decides to end: timeouts, escalation, grandchildren, groups, stopped leaves, storms.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, isAlive, runCommand, waitFor } from '@leap/test-utils';
import {
  SUPERVISE,
  alive,
  eventsOf,
  exitRecord,
  fixture,
  killStrays,
  makeScene,
  recordedPids,
  since,
  startSupervise,
  statusLine,
  superviseBin,
  track,
} from './helpers.js';

test.after.each(() => killStrays());
test.after(() => cleanupTempDirs());

// Shell fixtures set their traps within milliseconds of starting, well inside these limits.
const QUICK = { VERI_TIMEOUT: '0.5', VERI_KILL_AFTER: '0.3' };

test('S-timeout: a sleeping leaf is killed-timeout after about its timeout, code 2, with NAME.exit and the exit event', async () => {
  const scene = makeScene(QUICK);
  const t0 = performance.now();
  const r = await superviseBin(scene, ['develop-red', 'sleep', '30']);
  const took = since(t0);
  assert.is(r.code, 2);
  assert.ok(took >= 0.5 && took < 5, `took ${took} s`);
  const exit = exitRecord(scene, 'develop-red');
  assert.is(exit?.status, 'killed-timeout');
  assert.is(exit?.code, 2);
  assert.is(exit?.signal, 'SIGTERM');
  assert.is(statusLine(r.stderr, 'develop-red'), 'killed-timeout');
  const [event] = eventsOf(scene, 'exit', 'develop-red');
  assert.is(event?.status, 'killed-timeout');
  assert.is(event?.code, 2);
  assert.is(event?.signal, 'SIGTERM');
});

test('S-code-after-kill: a leaf that exits 0 on our SIGTERM is still killed-timeout code 2, its own code recorded', async () => {
  const scene = makeScene(QUICK);
  const r = await superviseBin(scene, ['graceful', fixture('graceful.sh')]);
  assert.is(r.code, 2);
  const exit = exitRecord(scene, 'graceful');
  assert.is(exit?.status, 'killed-timeout');
  assert.is(exit?.leafCode, 0);
  assert.is(exit?.signal, undefined);
});

test('S-escalate: a leaf that ignores SIGTERM (F4) gets SIGKILL after the grace period and is gone', async () => {
  const scene = makeScene(QUICK);
  const t0 = performance.now();
  const r = await superviseBin(scene, ['stubborn', fixture('ignore-sigterm.sh')]);
  const took = since(t0);
  assert.is(r.code, 2);
  assert.ok(took >= 0.8 && took < 6, `took ${took} s`);
  assert.is(exitRecord(scene, 'stubborn')?.signal, 'SIGKILL');
  assert.is(exitRecord(scene, 'stubborn')?.status, 'killed-timeout');
  assert.equal(alive(recordedPids(scene)), []);
});

test('S-escalate-tree: TERM ignored by a whole shell tree (F4): every process of the session is dead when NAME.exit appears', async () => {
  const scene = makeScene(QUICK);
  const r = await superviseBin(scene, [
    'tree',
    'sh',
    '-c',
    `trap "" TERM; sleep 30 & echo "child $!" >> ${scene.pidsFile}; sleep 30 & echo "child $!" >> ${scene.pidsFile}; wait`,
  ]);
  assert.is(r.code, 2);
  const children = recordedPids(scene, 'child');
  assert.is(children.length, 2);
  assert.equal(alive(children), []);
  assert.is(exitRecord(scene, 'tree')?.leftovers, 2);
});

test('S-slow-shutdown: a leaf that takes longer than the grace to shut down (F5) is SIGKILLed at T + grace', async () => {
  const scene = makeScene(QUICK);
  const t0 = performance.now();
  const r = await superviseBin(scene, ['slow', fixture('slow-shutdown.sh'), '20']);
  assert.ok(since(t0) < 6);
  assert.is(r.code, 2);
  assert.is(exitRecord(scene, 'slow')?.signal, 'SIGKILL');
});

test('S-grandchildren: grandchildren in the leaf group (F6) die too, before NAME.exit appears', async () => {
  const scene = makeScene(QUICK);
  const r = await superviseBin(scene, ['gc', fixture('spawn-grandchild.sh'), '3']);
  assert.is(r.code, 2);
  const grandchildren = recordedPids(scene, 'grandchild');
  assert.is(grandchildren.length, 3);
  assert.equal(alive(grandchildren), []);
  assert.is(exitRecord(scene, 'gc')?.leftovers, 3);
});

test('S-left-group: a grandchild that moved to another process group of the session (F7) is swept', async () => {
  const scene = makeScene(QUICK);
  const r = await superviseBin(scene, ['pg', fixture('leave-group.sh')]);
  assert.is(r.code, 2);
  const [grandchild] = recordedPids(scene, 'grandchild');
  assert.ok(grandchild !== undefined);
  assert.is(isAlive(grandchild), false);
});

test('S-stopped: a leaf stopped with SIGSTOP (F11) still acts on TERM (we send CONT) and the run ends', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '0.5', VERI_KILL_AFTER: '5' });
  const t0 = performance.now();
  const r = await superviseBin(scene, ['stopped', fixture('stop-self.sh')]);
  assert.is(r.code, 2);
  assert.is(exitRecord(scene, 'stopped')?.status, 'killed-timeout');
  // SIGCONT let the pending SIGTERM act well before the 5 s grace would have needed SIGKILL.
  assert.is(exitRecord(scene, 'stopped')?.signal, 'SIGTERM');
  assert.ok(since(t0) < 4.5, `took ${since(t0)} s`);
});

test('S-stopped-kill: a stopped leaf that also ignores TERM is ended by SIGKILL after the grace', async () => {
  const scene = makeScene(QUICK);
  const r = await superviseBin(scene, [
    'stopped-stubborn',
    'sh',
    '-c',
    `trap "" TERM; echo "leaf $$" >> ${scene.pidsFile}; kill -STOP $$; sleep 30`,
  ]);
  assert.is(r.code, 2);
  assert.is(exitRecord(scene, 'stopped-stubborn')?.signal, 'SIGKILL');
  assert.equal(alive(recordedPids(scene)), []);
});

test('S-fork-storm: a leaf forking hundreds of children while being killed (F31) leaves none alive', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '0.5', VERI_KILL_AFTER: '0' });
  const r = await superviseBin(scene, ['storm', 'sh', '-c', `trap "" TERM; '${fixture('fork-storm.sh')}' 400`]);
  assert.is(r.code, 2);
  const exit = exitRecord(scene, 'storm');
  assert.is(exit?.status, 'killed-timeout');
  assert.ok((exit?.leftovers ?? 0) > 0);
  assert.is(exit?.unkillable, undefined);
});

test('S-external: a leaf killed by a signal we did not send (F12) is killed-external, code 2, signal recorded', async () => {
  for (const signal of ['SIGKILL', 'SIGTERM', 'SIGSEGV'] as const) {
    const scene = makeScene({ VERI_TIMEOUT: '60' });
    const name = `ext-${signal}`;
    const sup = startSupervise(scene, [name, 'sh', '-c', `echo "leaf $$" >> ${scene.pidsFile}; exec sleep 30`]);
    const leaf = await waitFor(() => recordedPids(scene, 'leaf')[0], 10_000);
    assert.ok(leaf !== undefined);
    track(leaf);
    await new Promise((r) => setTimeout(r, 100));
    process.kill(leaf, signal);
    const r = await sup.done;
    assert.is(r.code, 2, name);
    const exit = exitRecord(scene, name);
    assert.is(exit?.status, 'killed-external');
    assert.is(exit?.signal, signal);
    assert.is(statusLine(r.stderr, name), 'killed-external');
  }
});

test('S-external-self: a leaf that dies of its own SIGSEGV, SIGTERM or SIGPIPE is killed-external with that signal', async () => {
  const scene = makeScene();
  for (const signal of ['SEGV', 'TERM', 'PIPE']) {
    const r = await superviseBin(scene, [`self-${signal}`, 'sh', '-c', `kill -${signal} $$; sleep 30`]);
    assert.is(r.code, 2);
    assert.is(exitRecord(scene, `self-${signal}`)?.status, 'killed-external');
    assert.is(exitRecord(scene, `self-${signal}`)?.signal, `SIG${signal}`);
  }
});

test('S-kernel-signal: a leaf the kernel kills for its CPU limit (F14, prlimit) is killed-external with SIGXCPU', async () => {
  const scene = makeScene();
  const r = await superviseBin(scene, ['cpu', 'prlimit', '--cpu=1:2', 'sh', '-c', 'while :; do :; done']);
  assert.is(r.code, 2);
  assert.is(exitRecord(scene, 'cpu')?.status, 'killed-external');
  assert.is(exitRecord(scene, 'cpu')?.signal, 'SIGXCPU');
});

test('S-sigpipe-policy: a leaf whose stdout reader goes away dies of SIGPIPE (C-13): killed-external, signal SIGPIPE', async () => {
  const scene = makeScene();
  const r = await runCommand(
    'bash',
    ['-c', '"$0" "$1" pipe yes | head -c 1 > /dev/null; exit "${PIPESTATUS[0]}"', process.execPath, SUPERVISE],
    { cwd: scene.repo, env: scene.env },
  );
  assert.is(r.code, 2);
  assert.is(exitRecord(scene, 'pipe')?.status, 'killed-external');
  assert.is(exitRecord(scene, 'pipe')?.signal, 'SIGPIPE');
});

test('S-stuck: no output and no CPU for VERI_IDLE_TIMEOUT is killed-stuck; a chatty leaf is not', async () => {
  const scene = makeScene({ VERI_IDLE_TIMEOUT: '0.4', VERI_TIMEOUT: '60' });
  const r = await superviseBin(scene, ['idle', 'sleep', '30']);
  assert.is(r.code, 2);
  assert.is(exitRecord(scene, 'idle')?.status, 'killed-stuck');
  assert.is(statusLine(r.stderr, 'idle'), 'killed-stuck');
  const chatty = await superviseBin(scene, ['chatty', fixture('chatty.js'), '1.5']);
  assert.is(chatty.code, 0);
  assert.is(exitRecord(scene, 'chatty')?.status, 'exited');
});

test('S-stuck-cpu: a busy leaf with no output is making progress (CPU) and is not killed-stuck', async () => {
  const scene = makeScene({ VERI_IDLE_TIMEOUT: '0.4', VERI_TIMEOUT: '60' });
  const r = await superviseBin(scene, [
    'busy',
    process.execPath,
    '-e',
    'const end = Date.now() + 1500; while (Date.now() < end);',
  ]);
  assert.is(r.code, 0);
  assert.is(exitRecord(scene, 'busy')?.status, 'exited');
});

test('S-kill-after-zero: VERI_KILL_AFTER=0 sends SIGKILL at once, with no grace', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '0.3', VERI_KILL_AFTER: '0' });
  const r = await superviseBin(scene, ['now', 'sleep', '30']);
  assert.is(r.code, 2);
  assert.is(exitRecord(scene, 'now')?.signal, 'SIGKILL');
});

test('S-no-survivor-pids: pids recorded by killed fixtures are not alive afterwards', async () => {
  const scene = makeScene(QUICK);
  const sup = startSupervise(scene, ['gc2', fixture('spawn-grandchild.sh'), '2']);
  const r = await sup.done;
  assert.is(r.code, 2);
  const pids = recordedPids(scene);
  track(...pids);
  assert.is(pids.length, 3);
  assert.equal(alive(pids), []);
});

test.run();
