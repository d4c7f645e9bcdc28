// leap-supervise end to end: normal exits, start failures, the exit file, the events, the leaf's environment.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, hostileTitles } from '@leap/test-utils';
import {
  alive,
  eventsOf,
  exitRecord,
  fixture,
  killStrays,
  makeScene,
  recordedPids,
  statusLine,
  superviseBin,
} from './helpers.js';

test.after.each(() => killStrays());
test.after(() => cleanupTempDirs());

test('S-exit-0: a command that ends before its deadline is exited 0, in NAME.exit, the status line and the exit code', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '1d' });
  const r = await superviseBin(scene, ['develop-red', 'true']);
  assert.is(r.code, 0);
  const exit = exitRecord(scene, 'develop-red');
  assert.is(exit?.code, 0);
  assert.is(exit?.status, 'exited');
  assert.is(exit?.leafCode, 0);
  assert.is(statusLine(r.stderr, 'develop-red'), 'exited');
  assert.is(r.stderr, 'supervise[develop-red]: exited\n');
  assert.is(readFileSync(join(scene.state, 'develop-red.exit'), 'utf8').split('\n')[0], '0');
});

test('S-exit-propagate: codes 1, 2, 42 and 255 reach NAME.exit and the supervisor exit code verbatim', async () => {
  const scene = makeScene();
  for (const code of [1, 2, 42, 255]) {
    const r = await superviseBin(scene, [`leaf-${code}`, fixture('exit-with.js'), String(code)]);
    assert.is(r.code, code, `exit code ${code}`);
    const exit = exitRecord(scene, `leaf-${code}`);
    assert.is(exit?.code, code);
    assert.is(exit?.status, 'exited');
    assert.is(exit?.leafCode, code);
  }
});

test('S-shell-codes: a leaf that exits 137 through a shell is exited 137, not a kill (F13: we cannot see through shells)', async () => {
  const scene = makeScene();
  const r = await superviseBin(scene, ['sh-137', 'sh', '-c', 'exit 137']);
  assert.is(r.code, 137);
  assert.is(exitRecord(scene, 'sh-137')?.status, 'exited');
});

test('S-enoent: a missing command is failed-start 127, with NAME.exit, the status line and both events', async () => {
  const scene = makeScene();
  const r = await superviseBin(scene, ['develop-green', '/no/such/command', 'arg']);
  assert.is(r.code, 127);
  assert.is(exitRecord(scene, 'develop-green')?.status, 'failed-start');
  assert.is(exitRecord(scene, 'develop-green')?.code, 127);
  assert.match(r.stderr, 'command not found: "/no/such/command"');
  assert.is(statusLine(r.stderr, 'develop-green'), 'failed-start');
  assert.is(eventsOf(scene, 'launch', 'develop-green').length, 1);
  const exit = eventsOf(scene, 'exit', 'develop-green');
  assert.is(exit.length, 1);
  assert.is(exit[0]?.status, 'failed-start');
  assert.is(exit[0]?.code, 127);
});

test('S-noexec: a directory or a file without execute permission is failed-start 126', async () => {
  const scene = makeScene();
  const plain = join(scene.repo, 'plain.sh');
  writeFileSync(plain, '#!/bin/sh\nexit 0\n');
  chmodSync(plain, 0o644);
  for (const [name, command] of [
    ['dir', scene.repo],
    ['plain', plain],
  ] as const) {
    const r = await superviseBin(scene, [name, command]);
    assert.is(r.code, 126, name);
    assert.is(exitRecord(scene, name)?.status, 'failed-start');
    assert.is(exitRecord(scene, name)?.code, 126);
    assert.match(r.stderr, 'cannot execute');
  }
});

test('S-events: launch and exit events carry issue, step, skill commit, actor, phase, attempt, pid, cmd and run', async () => {
  const scene = makeScene({ VERI_ISSUE: '7', VERI_STEP: 'Add the parser' });
  writeFileSync(join(scene.state, 'issue-7-skill-commit'), 'abc123\n');
  const r = await superviseBin(scene, ['develop-green-2', fixture('exit-with.js'), '1']);
  assert.is(r.code, 1);
  const [launch] = eventsOf(scene, 'launch', 'develop-green-2');
  const [exit] = eventsOf(scene, 'exit', 'develop-green-2');
  assert.ok(launch && exit);
  assert.equal([launch.issue, launch.step, launch.skill_commit], [7, 'Add the parser', 'abc123']);
  assert.equal([launch.actor, launch.phase, launch.attempt], ['developer', 'green', 2]);
  assert.equal(launch.cmd, [fixture('exit-with.js'), '1']);
  assert.ok(launch.pid > 0);
  assert.equal(
    [exit.issue, exit.step, exit.skill_commit, exit.code, exit.status, exit.leaf_code],
    [7, 'Add the parser', 'abc123', 1, 'exited', 1],
  );
  assert.is(exit.run, launch.run);
  assert.is(exit.run, exitRecord(scene, 'develop-green-2')?.run);
  assert.ok(exit.duration_ms >= 0);
});

test('S-role-unknown: a NAME leafRole rejects is still supervised, with actor, phase and attempt null', async () => {
  const scene = makeScene();
  const r = await superviseBin(scene, ['my-odd-leaf', 'true']);
  assert.is(r.code, 0);
  const [launch] = eventsOf(scene, 'launch', 'my-odd-leaf');
  assert.equal([launch?.actor, launch?.phase, launch?.attempt], [null, null, null]);
});

test('S-env: the leaf gets BASH_*_TIMEOUT_MS from its timeout, VERI_SKILL_COMMIT from the pinned file, the rest untouched', async () => {
  const scene = makeScene({ VERI_ISSUE: '7', VERI_TEST_CMD: "npm test -- --grep 'a b'", VERI_TIMEOUT: '90s' });
  writeFileSync(join(scene.state, 'issue-7-skill-commit'), 'deadbeef\n');
  const r = await superviseBin(scene, ['verify-red', fixture('print-env.js')], { VERI_STEP: 'plain' });
  const env = JSON.parse(r.stdout);
  assert.equal(env, {
    VERI_TEST_CMD: "npm test -- --grep 'a b'",
    VERI_ISSUE: '7',
    VERI_STEP: 'plain',
    VERI_SKILL_COMMIT: 'deadbeef',
    BASH_DEFAULT_TIMEOUT_MS: '90000',
    BASH_MAX_TIMEOUT_MS: '90000',
    LEAP_DETACH_READY_FD: null,
    markers: 1,
  });
});

test('S-env-caller: BASH_*_TIMEOUT_MS set by the caller win; the issue timeout file sets the default; VERI_SKILL_COMMIT wins over the pin', async () => {
  const scene = makeScene({ VERI_ISSUE: '3', VERI_SKILL_COMMIT: 'fromenv', VERI_TIMEOUT: '' });
  writeFileSync(join(scene.state, 'issue-3-timeout'), '120\n');
  writeFileSync(join(scene.state, 'issue-3-skill-commit'), 'pinned\n');
  const a = JSON.parse(
    (await superviseBin(scene, ['a', fixture('print-env.js')], { BASH_MAX_TIMEOUT_MS: '5' })).stdout,
  );
  assert.is(a.BASH_DEFAULT_TIMEOUT_MS, '120000');
  assert.is(a.BASH_MAX_TIMEOUT_MS, '5');
  assert.is(a.VERI_SKILL_COMMIT, 'fromenv');
  const none = JSON.parse((await superviseBin(scene, ['b', fixture('print-env.js')], { VERI_TIMEOUT: '0' })).stdout);
  assert.is(none.BASH_DEFAULT_TIMEOUT_MS, null, 'no limit leaves them unset');
});

test('S-hostile-step: VERI_STEP, VERI_TEST_CMD and VERI_ISSUE reach the leaf and the events byte for byte', async () => {
  const scene = makeScene({ VERI_ISSUE: '12' });
  for (const [i, title] of hostileTitles(12, 3).entries()) {
    const name = `verify-green-${i + 1}`;
    const r = await superviseBin(scene, [name, fixture('print-env.js')], { VERI_STEP: title, VERI_TEST_CMD: title });
    const env = JSON.parse(r.stdout);
    assert.is(env.VERI_STEP, title);
    assert.is(env.VERI_TEST_CMD, title);
    assert.is(eventsOf(scene, 'launch', name)[0]?.step, title);
    assert.is(eventsOf(scene, 'exit', name)[0]?.step, title);
  }
});

test('S-leftovers: a leader that exits and leaves children (F10) is exited with its code; the children are ended first', async () => {
  const scene = makeScene();
  const r = await superviseBin(scene, [
    'lingering',
    'sh',
    '-c',
    `sleep 30 & echo "child $!" >> ${scene.pidsFile}; exit 4`,
  ]);
  assert.is(r.code, 4);
  const exit = exitRecord(scene, 'lingering');
  assert.is(exit?.status, 'exited');
  assert.is(exit?.leftovers, 1);
  assert.equal(alive(recordedPids(scene, 'child')), []);
  assert.match(r.stderr, 'supervise[lingering]: exited (leftovers=1)');
});

test('S-stderr-format: the status line is exactly "supervise[NAME]: STATUS" and comes last on stderr', async () => {
  const scene = makeScene();
  const r = await superviseBin(scene, ['fmt', 'sh', '-c', 'echo leaf-says >&2; exit 0']);
  assert.is(r.stderr, 'leaf-says\nsupervise[fmt]: exited\n');
});

test.run();
