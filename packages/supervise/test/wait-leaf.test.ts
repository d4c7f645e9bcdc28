// leap-wait: answers with the leaf's code, spends its budget with 3, tells a gone supervisor (2) from a starting one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { cleanupTempDirs, isAlive, runBin, runCommand, waitFor } from '@leap/test-utils';
import { processIdentity } from '@leap/core';
import { waitLeaf } from '../src/wait-leaf.js';
import { formatPidRecord, writeExitFile } from '../src/leaf-files.js';
import {
  SUPERVISE,
  WAIT,
  bin,
  fixture,
  killStrays,
  makeScene,
  recordedPids,
  start,
  startSupervise,
  supervisorPid,
  track,
} from './helpers.js';

test.after.each(() => killStrays());
test.after(() => cleanupTempDirs());

test('W-help: --help prints the usage on stdout and exits 0', async () => {
  const r = await runBin(WAIT, ['--help']);
  assert.is(r.code, 0);
  assert.match(r.stdout, 'Usage: leap-wait [--json] NAME [MAX_SECONDS]');
});

test('W-answer: leap-wait blocks until NAME.exit appears and exits with its code; stderr says wait-leaf[NAME]: STATUS', async () => {
  const scene = makeScene();
  const sup = startSupervise(scene, ['develop-red', 'sh', '-c', 'sleep 0.5; exit 1']);
  await supervisorPid(scene, 'develop-red');
  const r = await bin(WAIT, scene, ['develop-red']);
  assert.is(r.code, 1);
  assert.is(r.stderr, 'wait-leaf[develop-red]: exited\n');
  assert.is(r.stdout, '');
  assert.is((await sup.done).code, 1);
});

test('W-json: --json prints {name, code, status, ...} on stdout for a finished leaf', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '0.2', VERI_KILL_AFTER: '0.1' });
  await runBin(SUPERVISE, ['jsonleaf', 'sleep', '5'], { cwd: scene.repo, env: scene.env });
  const r = await bin(WAIT, scene, ['--json', 'jsonleaf']);
  assert.is(r.code, 2);
  const record = JSON.parse(r.stdout);
  assert.is(record.name, 'jsonleaf');
  assert.is(record.code, 2);
  assert.is(record.status, 'killed-timeout');
  assert.is(record.signal, 'SIGTERM');
  assert.type(record.run, 'string');
  assert.is(r.stderr, 'wait-leaf[jsonleaf]: killed-timeout\n');
});

test('W-collision: a leaf that exits 3 is told from a spent budget by the stderr line and --json (F26)', async () => {
  const scene = makeScene();
  await runBin(SUPERVISE, ['three', fixture('exit-with.js'), '3'], { cwd: scene.repo, env: scene.env });
  const answered = await bin(WAIT, scene, ['--json', 'three']);
  assert.is(answered.code, 3);
  assert.is(answered.stderr, 'wait-leaf[three]: exited\n');
  assert.is(JSON.parse(answered.stdout).status, 'exited');
  const sup = startSupervise(scene, ['running', 'sleep', '30']);
  await supervisorPid(scene, 'running');
  const spent = await bin(WAIT, scene, ['--json', 'running', '0.3']);
  assert.is(spent.code, 3);
  assert.is(spent.stderr, 'wait-leaf[running]: budget-spent\n');
  assert.is(JSON.parse(spent.stdout).status, 'budget-spent');
  process.kill(sup.pid, 'SIGTERM');
  await sup.done;
});

test('W-budget: with the leaf sleeping, leap-wait N 1 exits 3 after about a second and leaves the leaf running (F24)', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '60' });
  const sup = startSupervise(scene, ['sleeper', 'sh', '-c', `echo "leaf $$" >> ${scene.pidsFile}; exec sleep 30`]);
  await supervisorPid(scene, 'sleeper');
  const leaf = await waitFor(() => recordedPids(scene)[0], 10_000);
  const t0 = performance.now();
  const r = await bin(WAIT, scene, ['sleeper', '1']);
  const took = (performance.now() - t0) / 1000;
  assert.is(r.code, 3);
  assert.ok(took >= 1 && took < 5, `took ${took}`);
  assert.ok(leaf !== undefined && isAlive(leaf));
  assert.ok(isAlive(sup.pid));
  process.kill(sup.pid, 'SIGTERM');
  await sup.done;
});

test('W-budget-values: 0 looks once, -1 and abc are usage errors 125, 1e-9 answers 3, a huge budget does not fire at once (F25)', async () => {
  const scene = makeScene();
  const sup = startSupervise(scene, ['edge', 'sleep', '4']);
  await supervisorPid(scene, 'edge');
  assert.is((await bin(WAIT, scene, ['edge', '0'])).code, 3);
  assert.is((await bin(WAIT, scene, ['edge', '1e-9'])).code, 3);
  for (const bad of ['-1', 'abc']) {
    const r = await bin(WAIT, scene, ['edge', bad]);
    assert.is(r.code, 125, bad);
    assert.match(r.stderr, 'MAX_SECONDS');
  }
  const huge = await bin(WAIT, scene, ['edge', '9999999999']);
  assert.is(huge.code, 0);
  assert.is(huge.stderr, 'wait-leaf[edge]: exited\n');
  await sup.done;
});

test('W-args: a bad NAME, no NAME, extra arguments or an unknown option are usage errors 125', async () => {
  const scene = makeScene();
  for (const args of [['a/b'], ['..'], [], ['a', '1', 'extra'], ['--nope', 'a']]) {
    const r = await bin(WAIT, scene, args);
    assert.is(r.code, 125, JSON.stringify(args));
    assert.match(r.stderr, 'leap-wait: ');
  }
});

test('S-supervisor-sigkill: a SIGKILLed supervisor (C-33, F16) makes leap-wait exit 2 promptly; its leaf survives (no pdeathsig)', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '60' });
  const sup = startSupervise(scene, ['orphan', 'sh', '-c', `echo "leaf $$" >> ${scene.pidsFile}; exec sleep 30`]);
  const leaf = await waitFor(() => recordedPids(scene)[0], 10_000);
  assert.ok(leaf !== undefined);
  track(leaf);
  await supervisorPid(scene, 'orphan');
  const waiter = start(process.execPath, [WAIT, 'orphan'], { cwd: scene.repo, env: scene.env });
  await new Promise((r) => setTimeout(r, 300));
  process.kill(sup.pid, 'SIGKILL');
  const r = await waiter.done;
  assert.is(r.code, 2);
  assert.is(r.stderr, 'wait-leaf[orphan]: supervisor-gone\n');
  // Documented: nothing can end the leaf once its supervisor is SIGKILLed (Node has no PR_SET_PDEATHSIG).
  assert.ok(isAlive(leaf));
});

test('W-reused-pid: NAME.pid naming a live process with another start time (F19) is a gone supervisor: 2 at once', async () => {
  const scene = makeScene();
  const stranger = spawn('sleep', ['30'], { stdio: 'ignore' });
  track(stranger.pid as number);
  writeFileSync(join(scene.state, 'reused.pid'), `${stranger.pid}\nstarttime=1\nboot_id=whatever\nrun=r1\n`);
  const r = await bin(WAIT, scene, ['reused', '20']);
  assert.is(r.code, 2);
  assert.is(r.stderr, 'wait-leaf[reused]: supervisor-gone\n');
  stranger.kill('SIGKILL');
});

test('W-reused-pid-real: a pid really reused in a PID namespace (F19b, ns_last_pid) is a gone supervisor', async () => {
  const scene = makeScene();
  const script = `
    sleep 30 & P=$!; sleep 0.05; ST=$(cut -d' ' -f22 /proc/$P/stat); kill $P; wait $P 2>/dev/null
    sleep 0.05; echo $((P - 1)) > /proc/sys/kernel/ns_last_pid; sleep 30 & Q=$!
    printf '%s\\nstarttime=%s\\nrun=old\\n' "$P" "$ST" > .tdd/ns-reuse.pid
    echo "P=$P Q=$Q"; "$0" "$1" ns-reuse 20; echo "rc=$?"; kill $Q`;
  const r = await runCommand(
    'unshare',
    ['--pid', '--fork', '--map-root-user', '--mount-proc', 'sh', '-c', script, process.execPath, WAIT],
    { cwd: scene.repo, env: scene.env },
  );
  const match = /P=(\d+) Q=(\d+)/.exec(r.stdout);
  assert.ok(match !== null, r.stdout + r.stderr);
  assert.is(match[1], match[2], 'the namespace gave the new process the old pid');
  assert.match(r.stdout, 'rc=2');
  assert.match(r.stderr, 'wait-leaf[ns-reuse]: supervisor-gone');
});

test('W-zombie: NAME.pid naming a zombie (F20) is a gone supervisor: 2 at once', async () => {
  const scene = makeScene();
  const zfile = join(scene.repo, 'zpid');
  const parent = start('sh', ['-c', `sleep 0.1 & echo $! > ${zfile}; exec sleep 30`], {
    cwd: scene.repo,
    env: scene.env,
  });
  const zombie = await waitFor(() => {
    try {
      const pid = Number(readFileSync(zfile, 'utf8'));
      return pid > 0 && !isAlive(pid) && existsSync(`/proc/${pid}`) ? pid : 0;
    } catch {
      return 0;
    }
  }, 10_000);
  assert.ok(zombie > 0, 'a zombie exists');
  const identity = processIdentity(zombie);
  writeFileSync(
    join(scene.state, 'zombie.pid'),
    formatPidRecord({ pid: zombie, starttime: identity?.starttime, bootId: identity?.bootId, run: 'z' }),
  );
  const r = await bin(WAIT, scene, ['zombie', '20']);
  assert.is(r.code, 2);
  assert.is(r.stderr, 'wait-leaf[zombie]: supervisor-gone\n');
  process.kill(parent.pid, 'SIGKILL');
});

test('W-starting: no NAME.pid yet is a supervisor still starting (F21): leap-wait waits and returns the leaf code', async () => {
  const scene = makeScene();
  const waiter = start(process.execPath, [WAIT, 'late', '20'], { cwd: scene.repo, env: scene.env });
  await new Promise((r) => setTimeout(r, 400));
  assert.ok(isAlive(waiter.pid), 'still waiting');
  await runBin(SUPERVISE, ['late', fixture('exit-with.js'), '1'], { cwd: scene.repo, env: scene.env });
  const r = await waiter.done;
  assert.is(r.code, 1);
});

test('W-stale-exit: an exit file of another run (run id differs from NAME.pid) is not an answer (F18)', async () => {
  const scene = makeScene();
  const holder = start('sleep', ['30'], { cwd: scene.repo, env: scene.env });
  const identity = processIdentity(holder.pid);
  writeFileSync(
    join(scene.state, 'stale.pid'),
    formatPidRecord({ pid: holder.pid, starttime: identity?.starttime, bootId: identity?.bootId, run: 'new' }),
  );
  writeExitFile(join(scene.state, 'stale.exit'), { code: 0, status: 'exited', run: 'old' });
  const spent = await bin(WAIT, scene, ['stale', '0.3']);
  assert.is(spent.code, 3, 'the stale 0 is ignored while the new supervisor lives');
  writeExitFile(join(scene.state, 'stale.exit'), { code: 7, status: 'exited', run: 'new' });
  assert.is((await bin(WAIT, scene, ['stale', '5'])).code, 7);
  process.kill(holder.pid, 'SIGKILL');
});

test('W-unreadable-exit: an exit file whose first line is not a code answers 2 with status unreadable', async () => {
  const scene = makeScene();
  writeFileSync(join(scene.state, 'garbage.exit'), 'not a code\n');
  const r = await bin(WAIT, scene, ['--json', 'garbage', '1']);
  assert.is(r.code, 2);
  assert.is(JSON.parse(r.stdout).status, 'unreadable');
  assert.match(JSON.parse(r.stdout).error, 'expected an exit code on line 1');
});

test('W-no-watch: with fs.watch failing (ENOSPC) and a state folder that does not exist yet, polling still answers (F27)', async () => {
  const scene = makeScene();
  rmSync(scene.state, { recursive: true });
  const waiter = start(process.execPath, ['--import', fixture('no-watch.mjs'), WAIT, 'polled', '20'], {
    cwd: scene.repo,
    env: scene.env,
  });
  await new Promise((r) => setTimeout(r, 300));
  await runBin(SUPERVISE, ['polled', fixture('exit-with.js'), '1'], { cwd: scene.repo, env: scene.env });
  const r = await waiter.done;
  assert.is(r.code, 1);
  assert.is(r.stderr, 'wait-leaf[polled]: exited\n');
});

// ---

test("waitLeaf: a watched folder wakes the waiter on the exit file's rename, with polling pushed out of the way", async () => {
  const scene = makeScene();
  const holder = start('sleep', ['30'], { cwd: scene.repo, env: scene.env });
  const identity = processIdentity(holder.pid);
  writeFileSync(
    join(scene.state, 'woken.pid'),
    formatPidRecord({ pid: holder.pid, starttime: identity?.starttime, run: 'w' }),
  );
  const waiting = waitLeaf({
    name: 'woken',
    budgetMs: 20_000,
    pollMs: 60_000,
    maxPollMs: 60_000,
    cwd: scene.repo,
    env: scene.env,
  });
  setTimeout(() => writeExitFile(join(scene.state, 'woken.exit'), { code: 1, status: 'exited', run: 'w' }), 200);
  const result = await waiting;
  assert.is(result.code, 1);
  assert.is(result.status, 'exited');
  assert.is(result.supervisor, holder.pid);
  assert.ok(result.waitedMs < 20_000);
  process.kill(holder.pid, 'SIGKILL');
});

test('waitLeaf: a supervisor dying without an exit file is noticed by the poll (no file event comes)', async () => {
  const scene = makeScene();
  const holder = start('sleep', ['30'], { cwd: scene.repo, env: scene.env });
  const identity = processIdentity(holder.pid);
  writeFileSync(
    join(scene.state, 'dies.pid'),
    formatPidRecord({ pid: holder.pid, starttime: identity?.starttime, run: 'd' }),
  );
  const waiting = waitLeaf({ name: 'dies', budgetMs: 20_000, cwd: scene.repo, env: scene.env });
  setTimeout(() => process.kill(holder.pid, 'SIGKILL'), 200);
  const result = await waiting;
  assert.is(result.code, 2);
  assert.is(result.status, 'supervisor-gone');
});

test('waitLeaf: budget 0 looks once; a garbage NAME.pid is a gone supervisor; a missing folder is a supervisor still starting', async () => {
  const scene = makeScene();
  const once = await waitLeaf({ name: 'none', budgetMs: 0, cwd: scene.repo, env: scene.env });
  assert.equal([once.code, once.status, once.supervisor], [3, 'budget-spent', null]);
  writeFileSync(join(scene.state, 'junk.pid'), 'not a pid\n');
  const junk = await waitLeaf({ name: 'junk', budgetMs: 5000, cwd: scene.repo, env: scene.env });
  assert.equal([junk.code, junk.status, junk.supervisor], [2, 'supervisor-gone', null]);
  const elsewhere = { ...scene.env, VERI_STATE_DIR: join(scene.repo, 'not-yet') };
  const waiting = waitLeaf({ name: 'later', budgetMs: 20_000, pollMs: 20, cwd: scene.repo, env: elsewhere });
  await new Promise((r) => setTimeout(r, 150));
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(scene.repo, 'not-yet'));
  writeExitFile(join(scene.repo, 'not-yet', 'later.exit'), { code: 0, status: 'exited' });
  const later = await waiting;
  assert.equal([later.code, later.status], [0, 'exited']);
});

test('waitLeaf: a budget that runs out while the supervisor lives is budget-spent with the supervisor pid', async () => {
  const scene = makeScene();
  const holder = start('sleep', ['30'], { cwd: scene.repo, env: scene.env });
  const identity = processIdentity(holder.pid);
  writeFileSync(
    join(scene.state, 'long.pid'),
    formatPidRecord({ pid: holder.pid, starttime: identity?.starttime, bootId: identity?.bootId, run: 'l' }),
  );
  const result = await waitLeaf({ name: 'long', budgetMs: 300, cwd: scene.repo, env: scene.env });
  assert.equal([result.code, result.status, result.supervisor], [3, 'budget-spent', holder.pid]);
  assert.ok(result.waitedMs >= 290);
  process.kill(holder.pid, 'SIGKILL');
});

test.run();
