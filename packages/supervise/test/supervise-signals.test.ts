// Signals to the supervisor itself, inherited dispositions and masks, a closed stderr, an init parent.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, runCommand, waitFor } from '@leap/test-utils';
import {
  SUPERVISE,
  alive,
  eventsOf,
  exitRecord,
  fixture,
  killStrays,
  makeScene,
  recordedPids,
  start,
  startSupervise,
  statusLine,
} from './helpers.js';

test.after.each(() => killStrays());
test.after(() => cleanupTempDirs());

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  test(`S-signal-${signal}: ${signal} to the supervisor (F15) ends the whole tree, killed-signal code 2, then the supervisor exits 2`, async () => {
    const scene = makeScene({ VERI_TIMEOUT: '60', VERI_KILL_AFTER: '0.3' });
    const sup = startSupervise(scene, ['sig', fixture('spawn-grandchild.sh'), '2']);
    await waitFor(() => recordedPids(scene).length === 3, 10_000);
    process.kill(sup.pid, signal);
    const r = await sup.done;
    assert.is(r.code, 2);
    const exit = exitRecord(scene, 'sig');
    assert.is(exit?.status, 'killed-signal');
    assert.is(exit?.received, signal);
    assert.is(exit?.signal, 'SIGTERM');
    assert.is(statusLine(r.stderr, 'sig'), 'killed-signal');
    assert.equal(alive(recordedPids(scene)), []);
    assert.is(eventsOf(scene, 'exit', 'sig')[0]?.status, 'killed-signal');
  });
}

test('S-signal-twice: a second signal does not restart the grace period; a TERM-ignoring leaf dies at grace', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '60', VERI_KILL_AFTER: '1' });
  const sup = startSupervise(scene, ['twice', fixture('ignore-sigterm.sh')]);
  await waitFor(() => recordedPids(scene).length === 1, 10_000);
  const t0 = performance.now();
  process.kill(sup.pid, 'SIGTERM');
  await new Promise((r) => setTimeout(r, 600));
  process.kill(sup.pid, 'SIGINT');
  const r = await sup.done;
  const took = (performance.now() - t0) / 1000;
  assert.is(r.code, 2);
  assert.is(exitRecord(scene, 'twice')?.received, 'SIGTERM');
  assert.is(exitRecord(scene, 'twice')?.signal, 'SIGKILL');
  assert.ok(took < 1.55, `a re-armed grace would take 1.6 s or more; took ${took} s`);
});

test("S-group-signal: a signal to the supervisor's whole process group (C-32) reaches the leaf through the supervisor", async () => {
  const scene = makeScene({ VERI_TIMEOUT: '60' });
  const sup = startSupervise(scene, ['group', fixture('graceful.sh')]);
  await waitFor(() => recordedPids(scene).length === 1, 10_000);
  process.kill(-sup.pid, 'SIGTERM');
  const r = await sup.done;
  assert.is(r.code, 2);
  assert.is(exitRecord(scene, 'group')?.status, 'killed-signal');
  assert.is(exitRecord(scene, 'group')?.leafCode, 0);
  assert.equal(alive(recordedPids(scene)), []);
});

test('S-stderr-epipe: with stderr a pipe whose reader is gone (C-12, F17) the tree is killed, NAME.exit written, code 2', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '0.3' });
  const status = join(scene.repo, 'status');
  const script = `{ "$0" "$1" epipe sleep 30 2>&1; echo $? > "$2"; } | true`;
  const r = await runCommand('bash', ['-c', script, process.execPath, SUPERVISE, status], {
    cwd: scene.repo,
    env: scene.env,
  });
  assert.is(r.code, 0);
  assert.is(readFileSync(status, 'utf8').trim(), '2');
  assert.is(exitRecord(scene, 'epipe')?.status, 'killed-timeout');
});

test('S-stderr-closed: with stderr closed (2>&-) the supervisor still records and exits with the leaf code', async () => {
  const scene = makeScene();
  const status = join(scene.repo, 'status');
  const r = await runCommand(
    'bash',
    ['-c', `"$0" "$1" closed sh -c 'exit 6' 2>&-; echo $? > "$2"`, process.execPath, SUPERVISE, status],
    { cwd: scene.repo, env: scene.env },
  );
  assert.is(r.code, 0);
  assert.is(readFileSync(status, 'utf8').trim(), '6');
  assert.is(exitRecord(scene, 'closed')?.code, 6);
});

test('S-inherited-dispositions: started with CHLD, INT and HUP ignored (C-9), it still reaps and reports', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '60' });
  const ok = await runCommand(
    'sh',
    ['-c', `trap "" CHLD INT HUP; exec "$0" "$1" dispo true`, process.execPath, SUPERVISE],
    { cwd: scene.repo, env: scene.env },
  );
  assert.is(ok.code, 0);
  assert.is(exitRecord(scene, 'dispo')?.status, 'exited');
});

test('S-inherited-hup: a supervisor started with HUP ignored still ends the leaf on HUP (Node resets inherited ignores)', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '60' });
  const sup = start(
    'sh',
    ['-c', `trap "" INT HUP; exec "$0" "$1" dispo-hup "$2"`, process.execPath, SUPERVISE, fixture('graceful.sh')],
    { cwd: scene.repo, env: scene.env },
  );
  await waitFor(() => recordedPids(scene).length === 1, 10_000);
  process.kill(sup.pid, 'SIGHUP');
  const r = await sup.done;
  assert.is(r.code, 2);
  assert.is(exitRecord(scene, 'dispo-hup')?.status, 'killed-signal');
});

test('S-inherited-mask: started with ALRM, TERM and CHLD blocked (C-31), the timeout still fires', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '0.3' });
  const block =
    'use POSIX; sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGALRM, SIGTERM, SIGCHLD)) or die; exec @ARGV or die';
  const r = await runCommand('perl', ['-e', block, process.execPath, SUPERVISE, 'masked', 'sleep', '30'], {
    cwd: scene.repo,
    env: scene.env,
  });
  assert.is(r.code, 2);
  assert.is(exitRecord(scene, 'masked')?.status, 'killed-timeout');
});

test('S-parent-is-init: a supervisor whose parent is pid 1 of a PID namespace (C-35, F34) works, with no false alarm', async () => {
  const scene = makeScene();
  const r = await runCommand(
    'unshare',
    [
      '--pid',
      '--fork',
      '--map-root-user',
      '--mount-proc',
      'sh',
      '-c',
      '"$0" "$1" in-ns sh -c "exit 5"; echo "rc=$?"',
      process.execPath,
      SUPERVISE,
    ],
    {
      cwd: scene.repo,
      env: scene.env,
    },
  );
  assert.match(r.stdout, 'rc=5');
  assert.is(r.stderr, 'supervise[in-ns]: exited\n');
  assert.is(exitRecord(scene, 'in-ns')?.status, 'exited');
});

test('S-pid-one: a supervisor that is pid 1 itself (F35) warns that orphans are not reaped, and still works', async () => {
  const scene = makeScene();
  const r = await runCommand(
    'unshare',
    ['--pid', '--fork', '--map-root-user', '--mount-proc', process.execPath, SUPERVISE, 'init', 'true'],
    { cwd: scene.repo, env: scene.env },
  );
  assert.is(r.code, 0);
  assert.match(r.stderr, 'running as pid 1');
  assert.is(exitRecord(scene, 'init')?.status, 'exited');
});

test.run();
