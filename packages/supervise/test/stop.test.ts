// leap-stop and stop requests as the supervisor honours them: refused-stop, killed-stop, at-ledger.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, runBin, waitFor } from '@leap/test-utils';
import { checkStop, clearStopLogged, requestStopLogged } from '../src/stop.js';
import {
  STOP,
  bin,
  eventsOf,
  exitRecord,
  fixture,
  killStrays,
  makeScene,
  recordedPids,
  startSupervise,
  statusLine,
  superviseBin,
} from './helpers.js';

test.after.each(() => killStrays());
test.after(() => cleanupTempDirs());

test('T-help: --help prints the usage on stdout and exits 0', async () => {
  const r = await runBin(STOP, ['--help']);
  assert.is(r.code, 0);
  assert.match(r.stdout, 'leap-stop [--json] request MODE');
});

test('T-check: no stop pending is exit 3 and prints nothing; `check` is the default action', async () => {
  const scene = makeScene();
  for (const args of [[], ['check']]) {
    const r = await bin(STOP, scene, args);
    assert.is(r.code, 3);
    assert.is(r.stdout, '');
  }
  const json = await bin(STOP, scene, ['--json']);
  assert.is(json.code, 3);
  assert.equal(JSON.parse(json.stdout), { pending: false, mode: null });
});

test('T-request: request MODE writes the stop; check exits 0 and prints the mode; each request is a stop event', async () => {
  const scene = makeScene({ VERI_ISSUE: '4', VERI_STEP: 'step\'s "title"' });
  for (const mode of ['at-ledger', 'at-leaf', 'now']) {
    const r = await bin(STOP, scene, ['request', mode]);
    assert.is(r.code, 0);
    const check = await bin(STOP, scene, []);
    assert.is(check.code, 0);
    assert.is(check.stdout, `${mode}\n`);
    const json = await bin(STOP, scene, ['--json', 'check']);
    assert.equal(JSON.parse(json.stdout), { pending: true, mode });
  }
  const requested = eventsOf(scene, 'stop').filter((e) => e.action === 'requested');
  assert.equal(
    requested.map((e) => e.mode),
    ['at-ledger', 'at-leaf', 'now'],
  );
  assert.is(requested[0]?.issue, 4);
  assert.is(requested[0]?.step, 'step\'s "title"');
});

test('T-clear: clear removes the request (check exits 3 again) and appends a stop event with the cleared mode', async () => {
  const scene = makeScene();
  await bin(STOP, scene, ['request', 'now']);
  const r = await bin(STOP, scene, ['--json', 'clear']);
  assert.is(r.code, 0);
  assert.equal(JSON.parse(r.stdout), { action: 'cleared', mode: 'now' });
  assert.is((await bin(STOP, scene, [])).code, 3);
  const cleared = eventsOf(scene, 'stop').filter((e) => e.action === 'cleared');
  assert.is(cleared[0]?.mode, 'now');
  assert.is((await bin(STOP, scene, ['clear'])).code, 0, 'clearing nothing is fine');
});

test('T-unreadable: a stop file with other content, or one that cannot be read, is exit 2 with the reason', async () => {
  const scene = makeScene();
  writeFileSync(join(scene.state, 'stop'), 'please stop\n');
  const r = await bin(STOP, scene, []);
  assert.is(r.code, 2);
  assert.match(r.stderr, 'expected one of at-ledger, at-leaf, now');
  const json = await bin(STOP, scene, ['--json']);
  assert.is(json.code, 2);
  assert.is(JSON.parse(json.stdout).pending, true);
  await bin(STOP, scene, ['clear']);
  mkdirSync(join(scene.state, 'stop'));
  const dir = await bin(STOP, scene, []);
  assert.is(dir.code, 2);
  assert.match(dir.stderr, 'EISDIR');
});

test('T-usage: an unknown action, a bad MODE, a missing MODE or a bad VERI_ISSUE is a usage error 125', async () => {
  const scene = makeScene();
  for (const [args, expected] of [
    [['request', 'later'], 'at-ledger, at-leaf, now'],
    [['request'], 'Expected'],
    [['stop-it'], 'Expected'],
    [['clear', 'x'], 'Expected'],
  ] as const) {
    const r = await bin(STOP, scene, [...args]);
    assert.is(r.code, 125, args.join(' '));
    assert.match(r.stderr, expected);
  }
  const badIssue = await bin(STOP, scene, ['request', 'now'], { VERI_ISSUE: 'seven' });
  assert.is(badIssue.code, 125);
  assert.match(badIssue.stderr, 'VERI_ISSUE');
});

test('S-refused-stop: a pending at-leaf or now stop refuses the launch: refused-stop, exit file 2, exit 2, no launch event', async () => {
  for (const mode of ['at-leaf', 'now']) {
    const scene = makeScene();
    await bin(STOP, scene, ['request', mode]);
    const r = await superviseBin(scene, ['develop-red', 'sh', '-c', `echo "leaf $$" >> ${scene.pidsFile}`]);
    assert.is(r.code, 2, mode);
    assert.is(statusLine(r.stderr, 'develop-red'), 'refused-stop');
    assert.is(exitRecord(scene, 'develop-red')?.status, 'refused-stop');
    assert.is(exitRecord(scene, 'develop-red')?.code, 2);
    assert.equal(recordedPids(scene), [], 'nothing ran');
    assert.is(eventsOf(scene, 'launch').length, 0);
    assert.is(eventsOf(scene, 'exit', 'develop-red')[0]?.status, 'refused-stop');
    const honoured = eventsOf(scene, 'stop').filter((e) => e.action === 'honoured');
    assert.equal(
      honoured.map((e) => [e.mode, e.leaf]),
      [[mode, 'develop-red']],
    );
  }
});

test('S-at-ledger: a pending at-ledger stop (or an unreadable one) launches as usual', async () => {
  const scene = makeScene();
  await bin(STOP, scene, ['request', 'at-ledger']);
  assert.is((await superviseBin(scene, ['a', 'true'])).code, 0);
  writeFileSync(join(scene.state, 'stop'), 'garbage\n');
  assert.is((await superviseBin(scene, ['b', 'true'])).code, 0);
  assert.is(exitRecord(scene, 'b')?.status, 'exited');
});

test('S-killed-stop: a now stop arriving while the leaf runs ends it: killed-stop, code 2, a stop event honoured', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '60' });
  const sup = startSupervise(scene, ['develop-green', fixture('spawn-grandchild.sh'), '1']);
  await waitFor(() => recordedPids(scene).length === 2, 10_000);
  await bin(STOP, scene, ['request', 'at-leaf']);
  await new Promise((r) => setTimeout(r, 700));
  assert.is(exitRecord(scene, 'develop-green'), null, 'at-leaf lets the running leaf finish');
  await bin(STOP, scene, ['request', 'now']);
  const r = await sup.done;
  assert.is(r.code, 2);
  assert.is(exitRecord(scene, 'develop-green')?.status, 'killed-stop');
  assert.is(statusLine(r.stderr, 'develop-green'), 'killed-stop');
  const honoured = eventsOf(scene, 'stop').filter((e) => e.action === 'honoured');
  assert.equal(
    honoured.map((e) => [e.mode, e.leaf]),
    [['now', 'develop-green']],
  );
});

// ---

test('checkStop / requestStopLogged / clearStopLogged: the library behind leap-stop', () => {
  const scene = makeScene({ VERI_ISSUE: '9' });
  const options = { cwd: scene.repo, env: scene.env };
  assert.equal(checkStop(options), { kind: 'none' });
  writeFileSync(join(scene.state, 'issue-9-skill-commit'), 'pin9\n');
  assert.is(requestStopLogged('at-leaf', options), 'at-leaf');
  assert.equal(checkStop(options), { kind: 'requested', mode: 'at-leaf' });
  assert.equal(clearStopLogged(options), { kind: 'requested', mode: 'at-leaf' });
  assert.equal(checkStop(options), { kind: 'none' });
  const stops = eventsOf(scene, 'stop');
  assert.equal(
    stops.map((e) => [e.action, e.mode, e.skill_commit, e.issue]),
    [
      ['requested', 'at-leaf', 'pin9', 9],
      ['cleared', 'at-leaf', 'pin9', 9],
    ],
  );
  writeFileSync(join(scene.state, 'stop'), 'junk');
  assert.is(clearStopLogged(options).kind, 'unreadable');
  assert.is(eventsOf(scene, 'stop').at(-1)?.mode, 'unreadable');
  assert.throws(() => requestStopLogged('soon', options), /at-ledger, at-leaf, now/);
});

test("checkStop / requestStopLogged / clearStopLogged: without options they use this process's cwd and environment", () => {
  const scene = makeScene();
  const before = process.cwd();
  const saved = process.env.VERI_STATE_DIR;
  delete process.env.VERI_STATE_DIR;
  process.chdir(scene.repo);
  try {
    assert.equal(checkStop(), { kind: 'none' });
    requestStopLogged('now');
    assert.equal(checkStop(), { kind: 'requested', mode: 'now' });
    clearStopLogged();
    assert.equal(checkStop(), { kind: 'none' });
  } finally {
    process.chdir(before);
    if (saved !== undefined) process.env.VERI_STATE_DIR = saved;
  }
  assert.is(eventsOf(scene, 'stop').length, 2);
});

test.run();
