// Bad input to leap-supervise: usage errors exit 125 with a message naming what was wrong; no waiter is left hanging.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, runBin, waitFor } from '@leap/test-utils';
import {
  SUPERVISE,
  WAIT,
  bin,
  eventsOf,
  exitRecord,
  killStrays,
  makeScene,
  recordedPids,
  startSupervise,
  superviseBin,
} from './helpers.js';

test.after.each(() => killStrays());
test.after(() => cleanupTempDirs());

test('S-help: --help prints the usage on stdout and exits 0', async () => {
  const r = await runBin(SUPERVISE, ['--help']);
  assert.is(r.code, 0);
  assert.match(
    r.stdout,
    'Usage: leap-supervise [--sandbox writer|reader|off] [--network on|off] [--pass-env NAMES] NAME CMD [ARG...]',
  );
  assert.match(r.stdout, 'killed-external');
  assert.match(r.stdout, 'LEAP_SANDBOX=on|writer|reader|off');
});

test('S-args-unknown-option: an unknown option is a usage error 125 naming the option (C-36)', async () => {
  const scene = makeScene();
  const r = await superviseBin(scene, ['--frobnicate', 'leaf', 'true']);
  assert.is(r.code, 125);
  assert.match(r.stderr, "leap-supervise: Unknown option '--frobnicate'");
  assert.is(existsSync(join(scene.state, 'leaf.exit')), false);
});

test('S-args-missing: no NAME or no CMD is a usage error 125', async () => {
  const scene = makeScene();
  for (const args of [[], ['only-name']]) {
    const r = await superviseBin(scene, args);
    assert.is(r.code, 125, JSON.stringify(args));
    assert.match(r.stderr, 'Expected NAME and CMD');
  }
});

test('S-args-bad-name: a NAME with a slash, "..", "." or empty is a usage error 125 that names it, and writes nothing', async () => {
  const scene = makeScene();
  for (const name of ['a/b', '..', '.', '', '../escape']) {
    const r = await superviseBin(scene, ['--', name, 'true']);
    assert.is(r.code, 125, name);
    assert.match(r.stderr, `got ${JSON.stringify(name)}`);
  }
  assert.is(existsSync(join(scene.repo, 'escape.pid')), false);
});

test('S-args-bad-duration: malformed or negative VERI_TIMEOUT, VERI_KILL_AFTER, VERI_IDLE_TIMEOUT (C-14..C-18, C-30) are 125 with an exit file', async () => {
  const scene = makeScene();
  const cases: [string, string][] = [
    ['VERI_TIMEOUT', 'abc'],
    ['VERI_TIMEOUT', '-0.1'],
    ['VERI_TIMEOUT', ' -1e-10000'],
    ['VERI_TIMEOUT', '42D'],
    ['VERI_TIMEOUT', '-1.7976931348623157e308'],
    ['VERI_KILL_AFTER', '1x'],
    ['VERI_IDLE_TIMEOUT', '-5'],
  ];
  for (const [i, [variable, value]] of cases.entries()) {
    const name = `bad-${i}`;
    const r = await superviseBin(scene, [name, 'true'], { [variable]: value });
    assert.is(r.code, 125, `${variable}=${value}`);
    assert.match(r.stderr, variable);
    assert.match(r.stderr, JSON.stringify(value));
    assert.match(r.stderr, `supervise[${name}]: failed-start`);
    // The waiter gets an answer, not a hang.
    const exit = exitRecord(scene, name);
    assert.is(exit?.code, 125);
    assert.is(exit?.status, 'failed-start');
    assert.match(exit?.error ?? '', variable);
    const waited = await bin(WAIT, scene, [name, '5']);
    assert.is(waited.code, 125);
    assert.is(waited.stderr, `wait-leaf[${name}]: failed-start\n`);
  }
  assert.is(eventsOf(scene, 'launch').length, 0, 'nothing was launched');
  assert.is(eventsOf(scene, 'exit').length, cases.length);
});

test('S-args-bad-issue: a malformed VERI_ISSUE is 125 with an exit file and an exit event without an issue', async () => {
  const scene = makeScene();
  const r = await superviseBin(scene, ['bad-issue', 'true'], { VERI_ISSUE: '7; rm -rf /' });
  assert.is(r.code, 125);
  assert.match(r.stderr, 'VERI_ISSUE');
  assert.is(exitRecord(scene, 'bad-issue')?.status, 'failed-start');
  assert.is(eventsOf(scene, 'exit', 'bad-issue')[0]?.issue, null);
});

test('S-dur-suffix: durations accept fractions and s, m, h, d (C-2, C-19, C-20); 1d does not fire early', async () => {
  const scene = makeScene();
  for (const value of ['1d', '10.34', '9.999999999', '0.5m', '2.34e+5d', '1h']) {
    const r = await superviseBin(scene, ['dur', 'true'], {
      VERI_TIMEOUT: value,
      VERI_KILL_AFTER: value,
      VERI_IDLE_TIMEOUT: value,
    });
    assert.is(r.code, 0, value);
    assert.is(exitRecord(scene, 'dur')?.status, 'exited', value);
  }
});

test('S-dur-zero: VERI_TIMEOUT=0 means no limit, not "kill at once" (C-3)', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '0' });
  const r = await superviseBin(scene, ['zero', 'sleep', '0.4']);
  assert.is(r.code, 0);
  assert.is(exitRecord(scene, 'zero')?.status, 'exited');
});

test('S-dur-tiny: a tiny positive timeout (1e-10000, C-21) limits: it is at least 1 ms, never "disabled"', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '1e-10000', VERI_KILL_AFTER: '0.2' });
  const r = await superviseBin(scene, ['tiny', 'sleep', '30']);
  assert.is(r.code, 2);
  assert.is(exitRecord(scene, 'tiny')?.status, 'killed-timeout');
});

test('S-dur-huge: a timeout beyond one timer (30d, 1e300, C-25..C-29) does not fire at once', async () => {
  const scene = makeScene();
  for (const value of ['30d', '1e300', '1.7976931348623157e308']) {
    const r = await superviseBin(scene, ['huge', 'sleep', '0.3'], { VERI_TIMEOUT: value });
    assert.is(r.code, 0, value);
    assert.is(exitRecord(scene, 'huge')?.status, 'exited');
    assert.not.match(r.stderr, 'TimeoutOverflowWarning');
  }
});

test("S-two-supervisors: a second supervisor for a running NAME (F30) refuses with 125 and touches none of the first one's files", async () => {
  const scene = makeScene({ VERI_TIMEOUT: '60' });
  // The first leaf lives until the test has seen the second refused (a file, not a sleep: no speed assumed).
  const go = join(scene.repo, 'go');
  const first = startSupervise(scene, [
    'dup',
    'sh',
    '-c',
    `echo "leaf $$" >> ${scene.pidsFile}; while [ ! -e ${go} ]; do sleep 0.05; done; exit 7`,
  ]);
  await waitFor(
    () => recordedPids(scene).length === 1 && readFileSync(join(scene.state, 'dup.pid'), 'utf8').includes('leaf='),
    10_000,
  );
  const pidBefore = readFileSync(join(scene.state, 'dup.pid'), 'utf8');
  const eventsBefore = readFileSync(join(scene.state, 'events.jsonl'), 'utf8');
  writeFileSync(join(scene.state, 'marker'), '');
  const second = await superviseBin(scene, ['dup', 'true']);
  assert.is(second.code, 125);
  assert.match(second.stderr, 'another supervisor is running leaf "dup"');
  assert.is(readFileSync(join(scene.state, 'dup.pid'), 'utf8'), pidBefore);
  assert.is(readFileSync(join(scene.state, 'events.jsonl'), 'utf8'), eventsBefore);
  assert.is(existsSync(join(scene.state, 'dup.exit')), false);
  writeFileSync(go, '');
  const r = await first.done;
  assert.is(r.code, 7);
  assert.is(exitRecord(scene, 'dup')?.code, 7);
});

test('S-stale-pid: a NAME.pid left by a dead supervisor is taken over', async () => {
  const scene = makeScene();
  writeFileSync(join(scene.state, 'stale.pid'), '999999\nstarttime=1\n');
  const r = await superviseBin(scene, ['stale', 'true']);
  assert.is(r.code, 0);
  assert.is(exitRecord(scene, 'stale')?.status, 'exited');
});

test('S-state-dir: VERI_STATE_DIR moves every file; an uncreatable state folder is a usage error 125', async () => {
  const scene = makeScene();
  const other = join(scene.repo, 'elsewhere', 'state');
  const r = await superviseBin(scene, ['moved', 'true'], { VERI_STATE_DIR: other });
  assert.is(r.code, 0);
  assert.ok(existsSync(join(other, 'moved.exit')));
  writeFileSync(join(scene.repo, 'a-file'), '');
  const bad = await superviseBin(scene, ['moved', 'true'], { VERI_STATE_DIR: join(scene.repo, 'a-file', 'state') });
  assert.is(bad.code, 125);
  assert.match(bad.stderr, 'ENOTDIR');
});

test.run();
