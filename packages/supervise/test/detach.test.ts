// leap-detach: a new session, the readiness handshake with a supervisor, files passed on, pipes not held.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, isAlive, runBin, runCommand, scriptPath, waitFor } from '@leap/test-utils';
import { detach, supervisedName } from '../src/detach.js';
import { readProc } from '../src/proc-scan.js';
import {
  DETACH,
  SUPERVISE,
  WAIT,
  bin,
  exitRecord,
  fixture,
  killStrays,
  makeScene,
  recordedPids,
  start,
  track,
} from './helpers.js';

test.after.each(() => killStrays());
test.after(() => cleanupTempDirs());

test('D-help: --help prints the usage on stdout and exits 0', async () => {
  const r = await runBin(DETACH, ['--help']);
  assert.is(r.code, 0);
  assert.match(r.stdout, 'Usage: leap-detach [--json] CMD [ARG...]');
});

test("D-session: the child runs in a new session and group, outside the caller's, and detach returns at once", async () => {
  const scene = makeScene();
  const r = await bin(DETACH, scene, ['--json', 'sleep', '5']);
  assert.is(r.code, 0);
  const { pid } = JSON.parse(r.stdout);
  track(pid);
  const info = readProc(pid);
  assert.is(info?.sid, pid);
  assert.is(info?.pgid, pid);
  assert.is.not(info?.sid, readProc(process.pid)?.sid);
  process.kill(pid, 'SIGKILL');
});

test('D-handshake: for a supervisor, detach returns once NAME.pid is written; leap-wait right after gets the code', async () => {
  const scene = makeScene();
  const r = await bin(DETACH, scene, ['--json', process.execPath, SUPERVISE, 'hand', 'sh', '-c', 'sleep 0.3; exit 5']);
  assert.is(r.code, 0);
  const result = JSON.parse(r.stdout);
  assert.is(result.name, 'hand');
  const waited = await bin(WAIT, scene, ['hand', '20']);
  assert.is(waited.code, 5);
  assert.is(exitRecord(scene, 'hand')?.run, result.run, 'the run detach announced is the one that ended');
});

test('D-start-failure: a supervisor that dies during start-up (a second one for a running NAME) makes detach exit 1 with the reason', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '60' });
  const first = await bin(DETACH, scene, ['--json', process.execPath, SUPERVISE, 'twice', 'sleep', '30']);
  assert.is(first.code, 0);
  const firstPid = JSON.parse(first.stdout).pid as number;
  track(firstPid);
  const second = await bin(DETACH, scene, [process.execPath, SUPERVISE, 'twice', 'true']);
  assert.is(second.code, 1);
  assert.match(second.stderr, 'another supervisor is running leaf "twice"');
  assert.match(second.stderr, 'exited with code 125 during start-up');
  assert.ok(isAlive(firstPid));
  process.kill(firstPid, 'SIGTERM');
  assert.is((await bin(WAIT, scene, ['twice', '20'])).code, 2);
});

test('D-enoent: a command that cannot start is 127 (not found) or 126 (not executable); no command is 125', async () => {
  const scene = makeScene();
  const missing = await bin(DETACH, scene, ['/no/such/thing']);
  assert.is(missing.code, 127);
  assert.match(missing.stderr, 'command not found');
  assert.is((await bin(DETACH, scene, [scene.repo])).code, 126);
  assert.is((await bin(DETACH, scene, [])).code, 125);
  assert.is((await bin(DETACH, scene, ['--bogus', 'true'])).code, 125);
});

test("D-pipe: a caller reading detach's output through a pipe to its end is not kept waiting for the leaf (F29)", async () => {
  const scene = makeScene();
  const t0 = performance.now();
  const r = await runCommand('bash', ['-c', 'out=$("$0" "$1" sleep 8); echo "[$out]"', process.execPath, DETACH], {
    cwd: scene.repo,
    env: scene.env,
  });
  const took = (performance.now() - t0) / 1000;
  assert.is(r.stdout, '[]\n');
  assert.ok(took < 6, `took ${took} s`);
});

test('D-files: stdout and stderr redirected to files reach the leaf (the `> NAME.out 2> NAME.err` form)', async () => {
  const scene = makeScene();
  const r = await runCommand(
    'bash',
    [
      '-c',
      '"$0" "$1" "$2" "$3" files sh -c "echo to-out; echo to-err >&2" > .tdd/files.out 2> .tdd/files.err && "$0" "$4" files 20',
      process.execPath,
      DETACH,
      process.execPath,
      SUPERVISE,
      WAIT,
    ],
    { cwd: scene.repo, env: scene.env },
  );
  assert.is(r.code, 0);
  assert.is(readFileSync(join(scene.state, 'files.out'), 'utf8'), 'to-out\n');
  assert.is(readFileSync(join(scene.state, 'files.err'), 'utf8'), 'to-err\nsupervise[files]: exited\n');
});

test('D-no-leak: the handshake fd and variable do not reach the leaf', async () => {
  const scene = makeScene();
  const r = await runCommand(
    'bash',
    [
      '-c',
      '"$0" "$1" "$2" "$3" leak sh -c "ls /proc/\\$\\$/fd; \\"$5\\"" > .tdd/leak.out && "$0" "$4" leak 20',
      process.execPath,
      DETACH,
      process.execPath,
      SUPERVISE,
      WAIT,
      fixture('print-env.js'),
    ],
    { cwd: scene.repo, env: scene.env },
  );
  assert.is(r.code, 0);
  const [fds, env] = readFileSync(join(scene.state, 'leak.out'), 'utf8').split(/\n(?=\{)/);
  assert.not.ok(fds?.split('\n').includes('3'), `fd 3 leaked: ${fds}`);
  assert.is(JSON.parse(env ?? '{}').LEAP_DETACH_READY_FD, null);
});

test('S-harness-kills-group: the caller killing its own process group right after detach returns (F28) leaves supervisor and leaf running', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '60' });
  const harness = start(
    'bash',
    [
      '-c',
      '"$0" "$1" "$2" "$3" survivor sh -c "echo leaf \\$\\$ >> $5; sleep 1; exit 3" > .tdd/survivor.out 2> .tdd/survivor.err; kill -KILL 0',
      process.execPath,
      DETACH,
      process.execPath,
      SUPERVISE,
      scriptPath('wait-leaf.sh'),
      scene.pidsFile,
    ],
    { cwd: scene.repo, env: scene.env },
  );
  const r = await harness.done;
  assert.is(r.signal, 'SIGKILL');
  const leaf = await waitFor(() => recordedPids(scene)[0], 10_000);
  assert.ok(leaf !== undefined);
  const waited = await bin(WAIT, scene, ['survivor', '20']);
  assert.is(waited.code, 3);
  assert.is(exitRecord(scene, 'survivor')?.status, 'exited');
});

// ---

test('supervisedName: recognises supervise.sh, leap-supervise and node .../leap-supervise.cjs (or .js), and finds NAME', () => {
  assert.is(supervisedName('/x/scripts/supervise.sh', ['develop-red', 'claude', '-p']), 'develop-red');
  assert.is(supervisedName('leap-supervise', ['--', 'n', 'cmd']), 'n');
  assert.is(supervisedName(process.execPath, ['/a/dist/bin/leap-supervise.cjs', 'n', 'cmd']), 'n');
  assert.is(supervisedName(process.execPath, ['/a/dist/bin/leap-supervise.js', 'n', 'cmd']), 'n');
  assert.is(supervisedName('npx', ['leap-supervise', 'n', 'cmd']), 'n');
  assert.is(supervisedName('supervise.sh', ['--help']), null);
  assert.is(supervisedName('supervise.sh', ['only-name']), null);
  assert.is(supervisedName('sleep', ['5']), null);
  assert.is(supervisedName('node', ['other.js', 'n', 'cmd']), null);
  assert.is(supervisedName('node', []), null);
  assert.is(
    supervisedName('supervise.sh', [
      '--sandbox',
      'reader',
      '--network=off',
      '--pass-env',
      'A,B',
      'verify-red',
      'codex',
    ]),
    'verify-red',
    'the sandbox options come before NAME',
  );
  assert.is(supervisedName('leap-supervise', ['--sandbox=writer', '--', 'n', 'cmd']), 'n');
  assert.is(supervisedName('leap-supervise', ['--sandbox', 'writer']), null);
});

test('detach: in-process, a plain command resolves with its pid at once; ENOENT and EACCES reject with 127 and 126', async () => {
  const scene = makeScene();
  const started = await detach({ command: 'sleep', args: ['5'], cwd: scene.repo, env: scene.env });
  track(started.pid);
  assert.equal([started.name, started.run], [null, null]);
  assert.is(readProc(started.pid)?.sid, started.pid);
  process.kill(started.pid, 'SIGKILL');
  for (const [command, code] of [
    ['/no/such', 127],
    [scene.repo, 126],
  ] as const) {
    try {
      await detach({ command, cwd: scene.repo, env: scene.env });
      assert.unreachable('should reject');
    } catch (error) {
      assert.is((error as { exitCode?: number }).exitCode, code);
    }
  }
});

test('detach: in-process, a supervisor resolves after its handshake with NAME and run', async () => {
  const scene = makeScene();
  const result = await detach({
    command: process.execPath,
    args: [SUPERVISE, 'inproc', 'sh', '-c', 'exit 4'],
    cwd: scene.repo,
    env: scene.env,
  });
  assert.is(result.name, 'inproc');
  assert.is((await bin(WAIT, scene, ['inproc', '20'])).code, 4);
  assert.is(exitRecord(scene, 'inproc')?.run, result.run);
});

test('detach: a "supervisor" that never answers is given up after readyTimeoutMs (exit 1); one that dies of a signal says so', async () => {
  const scene = makeScene();
  const fake = join(scene.repo, 'supervise.sh');
  writeFileSync(fake, '#!/bin/sh\necho "leaf $$" >> "$FIXTURE_PIDS"\nexec sleep 30\n');
  chmodSync(fake, 0o755);
  try {
    await detach({ command: fake, args: ['slow', 'true'], cwd: scene.repo, env: scene.env, readyTimeoutMs: 300 });
    assert.unreachable('should give up');
  } catch (error) {
    assert.is((error as { exitCode?: number }).exitCode, 1);
    assert.match((error as Error).message, 'did not write its pid file within 300 ms; it is left running');
  }
  const left = recordedPids(scene)[0];
  assert.ok(left !== undefined && isAlive(left));
  process.kill(left, 'SIGKILL');
  writeFileSync(fake, '#!/bin/sh\nkill -TERM $$\n');
  try {
    await detach({ command: fake, args: ['dies', 'true'], cwd: scene.repo, env: scene.env });
    assert.unreachable('should fail');
  } catch (error) {
    assert.match((error as Error).message, 'died of SIGTERM during start-up');
  }
});

test.run();
