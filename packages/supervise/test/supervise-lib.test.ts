// The library under leap-supervise, called in-process: supervise(), its environment, config and status line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { cleanupTempDirs, isAlive, waitFor } from '@leap/test-utils';
import { buildLeafEnv, readSuperviseConfig, DEFAULT_KILL_AFTER_MS, supervise } from '../src/supervise.js';
import { formatStatusLine, type SuperviseResult } from '../src/leaf-files.js';
import { spawnLeaf, startFailureCode } from '../src/spawn-leaf.js';
import { closeReady, parseReadyLine, readyFd, reportFailure, reportReady, READY_FD_VAR } from '../src/detach.js';
import { asUsage } from '../src/exit-codes.js';
import { eventsOf, exitRecord, fixture, killStrays, makeScene, recordedPids } from './helpers.js';

test.after.each(() => killStrays());
test.after(() => cleanupTempDirs());

test('supervise: in-process, a leaf that exits gives the result, NAME.exit and both events', async () => {
  const scene = makeScene();
  const result = await supervise({
    name: 'lib',
    command: 'sh',
    args: ['-c', 'exit 3'],
    cwd: scene.repo,
    env: scene.env,
  });
  assert.is(result.code, 3);
  assert.is(result.status, 'exited');
  assert.is(result.leafCode, 3);
  assert.ok(result.leafPid !== null);
  assert.equal(result.warnings, []);
  assert.is(exitRecord(scene, 'lib')?.run, result.run);
  assert.is(eventsOf(scene, 'exit', 'lib').length, 1);
});

test('supervise: the same NAME twice in a row in one process works: NAME.pid (the lock) is gone after each run', async () => {
  const scene = makeScene();
  const { existsSync } = await import('node:fs');
  for (const code of [0, 1]) {
    const result = await supervise({
      name: 'again',
      command: 'sh',
      args: ['-c', `exit ${code}`],
      cwd: scene.repo,
      env: scene.env,
    });
    assert.is(result.code, code);
    assert.not.ok(existsSync(join(scene.state, 'again.pid')));
    assert.is(exitRecord(scene, 'again')?.run, result.run);
  }
});

test('supervise: an unwritable event log is a warning; the run and NAME.exit are unaffected', async () => {
  const scene = makeScene();
  mkdirSync(join(scene.state, 'events.jsonl'));
  const result = await supervise({ name: 'nolog', command: 'true', cwd: scene.repo, env: scene.env });
  assert.is(result.code, 0);
  assert.is(result.warnings.length, 2);
  assert.match(result.warnings[0] ?? '', 'cannot append a launch event');
  assert.is(exitRecord(scene, 'nolog')?.status, 'exited');
});

test('supervise: usage errors before NAME is known throw with exit code 125 (bad NAME, empty command)', async () => {
  const scene = makeScene();
  for (const [name, command] of [
    ['a/b', 'true'],
    ['ok', ''],
  ]) {
    try {
      await supervise({ name: name as string, command: command as string, cwd: scene.repo, env: scene.env });
      assert.unreachable('should throw');
    } catch (error) {
      assert.is((error as { exitCode?: number }).exitCode, 125);
    }
  }
});

test('supervise: a NUL byte in an argument is failed-start 126 with the reason', async () => {
  const scene = makeScene();
  const result = await supervise({ name: 'nul', command: 'echo', args: ['a\0b'], cwd: scene.repo, env: scene.env });
  assert.is(result.code, 126);
  assert.is(result.status, 'failed-start');
  assert.match(result.error ?? '', 'cannot start');
});

test('supervise: in-process timeout, idle limit and external signal give killed-timeout, killed-stuck and killed-external', async () => {
  const scene = makeScene({ VERI_KILL_AFTER: '0.2' });
  const options = { cwd: scene.repo };
  const timeout = await supervise({
    ...options,
    name: 't',
    command: fixture('spawn-grandchild.sh'),
    env: { ...scene.env, VERI_TIMEOUT: '0.4' },
  });
  assert.equal([timeout.status, timeout.code, timeout.leftovers], ['killed-timeout', 2, 2]);
  assert.equal(recordedPids(scene).filter(isAlive), []);
  const stuck = await supervise({
    ...options,
    name: 's',
    command: 'sleep',
    args: ['30'],
    env: { ...scene.env, VERI_IDLE_TIMEOUT: '0.3' },
  });
  assert.equal([stuck.status, stuck.code, stuck.signal], ['killed-stuck', 2, 'SIGTERM']);
  const external = await supervise({
    ...options,
    name: 'e',
    command: 'sh',
    args: ['-c', 'kill -KILL $$'],
    env: scene.env,
  });
  assert.equal([external.status, external.code, external.signal], ['killed-external', 2, 'SIGKILL']);
});

test('supervise: a now stop written while the leaf runs is killed-stop; at-leaf and now before the launch are refused-stop', async () => {
  const scene = makeScene();
  const running = supervise({
    name: 'n',
    command: fixture('ignore-sigterm.sh'),
    cwd: scene.repo,
    env: { ...scene.env, VERI_KILL_AFTER: '0.2' },
  });
  await waitFor(() => recordedPids(scene).length === 1, 10_000);
  writeFileSync(join(scene.state, 'stop'), 'at-leaf\n');
  writeFileSync(join(scene.state, 'stop'), 'now\n');
  const result = await running;
  assert.equal([result.status, result.code, result.signal], ['killed-stop', 2, 'SIGKILL']);
  const refused = await supervise({ name: 'r', command: 'true', cwd: scene.repo, env: scene.env });
  assert.equal([refused.status, refused.code, refused.leafPid], ['refused-stop', 2, null]);
  assert.is(eventsOf(scene, 'stop').filter((e) => e.action === 'honoured').length, 2);
});

test('supervise: with handleSignals, a TERM to this process ends the leaf (killed-signal) and the handlers are removed after', async () => {
  const scene = makeScene();
  const before = process.listenerCount('SIGTERM');
  const running = supervise({
    name: 'sig',
    command: fixture('graceful.sh'),
    cwd: scene.repo,
    env: scene.env,
    handleSignals: true,
  });
  await waitFor(() => recordedPids(scene).length === 1, 10_000);
  assert.is(process.listenerCount('SIGTERM'), before + 1);
  process.kill(process.pid, 'SIGTERM');
  const result = await running;
  assert.equal([result.status, result.code, result.received, result.leafCode], ['killed-signal', 2, 'SIGTERM', 0]);
  assert.is(process.listenerCount('SIGTERM'), before);
});

test('supervise: a bad variable after NAME is known is failed-start 125 with an exit file; the handshake still says ready', async () => {
  const scene = makeScene();
  const fifo = join(scene.repo, 'ready.fifo');
  execFileSync('mkfifo', [fifo]);
  const fd = openSync(fifo, 'r+');
  const reader = openSync(fifo, 'r+');
  const result = await supervise({
    name: 'cfg',
    command: 'true',
    cwd: scene.repo,
    env: { ...scene.env, VERI_IDLE_TIMEOUT: 'x' },
    readyFd: fd,
  });
  assert.equal([result.status, result.code], ['failed-start', 125]);
  assert.match(result.error ?? '', 'VERI_IDLE_TIMEOUT');
  assert.is(exitRecord(scene, 'cfg')?.code, 125);
  const buffer = Buffer.alloc(200);
  const n = readSync(reader, buffer);
  closeSync(reader);
  assert.match(buffer.subarray(0, n).toString(), new RegExp(`^ready ${process.pid} ${result.run}\n`));
});

test('supervise: a second supervise for a NAME this process holds refuses with 125 and reports it on the handshake', async () => {
  const scene = makeScene();
  const first = supervise({ name: 'dup', command: 'sleep', args: ['0.5'], cwd: scene.repo, env: scene.env });
  await waitFor(() => exitRecord(scene, 'dup') === null && eventsOf(scene, 'launch', 'dup').length === 1, 10_000);
  const fifo = join(scene.repo, 'dup.fifo');
  execFileSync('mkfifo', [fifo]);
  const fd = openSync(fifo, 'r+');
  const reader = openSync(fifo, 'r+');
  try {
    await supervise({ name: 'dup', command: 'true', cwd: scene.repo, env: scene.env, readyFd: fd });
    assert.unreachable('should refuse');
  } catch (error) {
    assert.is((error as { exitCode?: number }).exitCode, 125);
    assert.match((error as Error).message, 'another supervisor');
  }
  const buffer = Buffer.alloc(300);
  const n = readSync(reader, buffer);
  closeSync(reader);
  assert.match(buffer.subarray(0, n).toString(), /^error another supervisor is running leaf "dup"/);
  assert.is((await first).code, 0);
});

test('formatStatusLine: the status, then leftovers, escapees and unkillable pids when there are any', () => {
  const base = { name: 'n', status: 'exited', leftovers: 0, escaped: 0, unkillable: [] } as unknown as SuperviseResult;
  assert.is(formatStatusLine(base), 'supervise[n]: exited\n');
  assert.is(
    formatStatusLine({ ...base, status: 'killed-timeout', leftovers: 2, escaped: 1, unkillable: [5, 6] }),
    'supervise[n]: killed-timeout (leftovers=2 escaped=1 unkillable=5,6)\n',
  );
});

// ---

test('buildLeafEnv: BASH_* follow the timeout unless set, the pin is exported, the marker added, the handshake removed', () => {
  const env = buildLeafEnv(
    { A: '1', [READY_FD_VAR]: '3', BASH_MAX_TIMEOUT_MS: '' },
    { timeoutMs: 1500.2, skillCommit: 'pin', marker: 'LEAP_LEAF_x' },
  );
  assert.equal(env, {
    A: '1',
    BASH_MAX_TIMEOUT_MS: '',
    BASH_DEFAULT_TIMEOUT_MS: '1501',
    VERI_SKILL_COMMIT: 'pin',
    LEAP_LEAF_x: '1',
  });
  const huge = buildLeafEnv({}, { timeoutMs: Number.MAX_VALUE, skillCommit: null, marker: 'M' });
  assert.is(huge.BASH_DEFAULT_TIMEOUT_MS, String(Number.MAX_SAFE_INTEGER));
  assert.is(buildLeafEnv({}, { timeoutMs: 0, skillCommit: null, marker: 'M' }).BASH_DEFAULT_TIMEOUT_MS, undefined);
  // A supervisor nested in the leaf gets half the grace, so it ends its own tree before this one's SIGKILL.
  assert.is(
    buildLeafEnv({ VERI_KILL_AFTER: '5' }, { timeoutMs: 0, skillCommit: null, marker: 'M', killAfterMs: 5000 })
      .VERI_KILL_AFTER,
    '2.5',
  );
  assert.is(buildLeafEnv({}, { timeoutMs: 0, skillCommit: null, marker: 'M', killAfterMs: 0 }).VERI_KILL_AFTER, '0');
  assert.is(
    buildLeafEnv({}, { timeoutMs: 0, skillCommit: null, marker: 'M', killAfterMs: 301 }).VERI_KILL_AFTER,
    '0.15',
  );
});

test('readSuperviseConfig: defaults (900 s, 5 s grace, no idle limit) and the issue timeout file', () => {
  const scene = makeScene();
  const none = readSuperviseConfig(scene.state, {});
  assert.equal([none.timeoutMs, none.killAfterMs, none.idleMs], [900_000, DEFAULT_KILL_AFTER_MS, 0]);
  writeFileSync(join(scene.state, 'issue-5-timeout'), '2m\n');
  const fromFile = readSuperviseConfig(scene.state, {
    VERI_ISSUE: '5',
    VERI_KILL_AFTER: '1.5',
    VERI_IDLE_TIMEOUT: '1m',
  });
  assert.equal([fromFile.timeoutMs, fromFile.killAfterMs, fromFile.idleMs], [120_000, 1500, 60_000]);
  assert.throws(() => readSuperviseConfig(scene.state, { VERI_KILL_AFTER: 'soon' }), /VERI_KILL_AFTER/);
});

test('supervise: io gives the leaf its input (an unlinked file) and its output to files, byte for byte', async () => {
  const scene = makeScene();
  const input = `$(x) \`y\` "q" 'a' \\ %s\tü 🦀 \u05e9\u05dc\u05d5\u05dd\n${'z'.repeat(200_000)}`;
  const outFile = join(scene.state, 'io.out');
  const errFile = join(scene.state, 'io.err');
  mkdirSync(scene.state, { recursive: true });
  writeFileSync(outFile, 'left by an earlier run, and longer than what follows\n'.repeat(10_000));
  const result = await supervise({
    name: 'io',
    command: 'sh',
    args: ['-c', 'cat; echo oops >&2'],
    cwd: scene.repo,
    env: scene.env,
    io: { input, stdoutFile: outFile, stderrFile: errFile },
  });
  assert.is(result.status, 'exited');
  assert.is(result.code, 0);
  assert.is(readFileSync(outFile, 'utf8'), input);
  assert.is(readFileSync(errFile, 'utf8'), 'oops\n');
  // A leaf that never reads its input and exits at once: unread input is no error.
  const deaf = await supervise({
    name: 'deaf',
    command: 'true',
    cwd: scene.repo,
    env: scene.env,
    io: { input: 'x'.repeat(1 << 20) },
  });
  assert.is(deaf.status, 'exited');
  assert.is(deaf.code, 0);
  // The input files were unlinked as soon as they were written: nothing is left in the state folder.
  assert.equal(
    readdirSync(scene.state).filter((f) => f.startsWith('.input.')),
    [],
  );
});

test('supervise: an output file that cannot be opened is a failed start, and the leaf never runs', async () => {
  const scene = makeScene();
  const marker = join(scene.repo, 'ran');
  const result = await supervise({
    name: 'noout',
    command: 'touch',
    args: [marker],
    cwd: scene.repo,
    env: scene.env,
    io: { stdoutFile: join(scene.repo, 'no', 'such', 'dir', 'x.out') },
  });
  assert.is(result.status, 'failed-start');
  assert.match(result.error ?? '', /^cannot open \/.*\/no\/such\/dir\/x\.out for the leaf's stdout: ENOENT/);
  assert.not.ok(existsSync(marker));
  assert.is(exitRecord(scene, 'noout')?.status, 'failed-start');
});

test('spawnLeaf / startFailureCode: 127 for ENOENT and ENOTDIR, 126 for everything else', async () => {
  assert.is(startFailureCode('ENOENT'), 127);
  assert.is(startFailureCode('ENOTDIR'), 127);
  assert.is(startFailureCode('EACCES'), 126);
  assert.is(startFailureCode(undefined), 126);
  const missing = await spawnLeaf('/no/such', [], {}, '/');
  assert.equal(missing.kind === 'failed' ? missing.code : 0, 127);
  const started = await spawnLeaf('true', [], { PATH: process.env.PATH }, '/');
  assert.is(started.kind, 'started');
  if (started.kind === 'started') await new Promise((r) => started.child.on('exit', r));
});

test('readyFd / parseReadyLine: only a pipe or socket on the named fd counts; lines are ready or error', () => {
  assert.is(readyFd({}), null);
  assert.is(readyFd({ [READY_FD_VAR]: 'x' }), null);
  assert.is(readyFd({ [READY_FD_VAR]: '999' }), null);
  assert.equal(parseReadyLine('ready 12 abc'), { kind: 'ready', pid: 12, run: 'abc' });
  assert.equal(parseReadyLine('error bad thing'), { kind: 'error', reason: 'bad thing' });
  assert.is(parseReadyLine('hello'), null);
});

test('reportReady / reportFailure / closeReady: a handshake whose reader is gone (a closed fd) is not an error', () => {
  const closed = 987;
  reportReady(closed, 1, 'r');
  reportFailure(closed, 'x');
  closeReady(closed);
  reportReady(null, 1, 'r');
  reportFailure(null, 'x');
  assert.ok(true, 'none of them threw');
});

test('asUsage: any error becomes a UsageError with exit code 125', () => {
  assert.is(
    asUsage(() => 5),
    5,
  );
  try {
    asUsage(() => {
      throw 'plain';
    });
  } catch (error) {
    assert.is((error as { exitCode: number }).exitCode, 125);
    assert.is((error as Error).message, 'plain');
  }
});

test.run();
