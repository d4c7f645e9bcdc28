// Leaves that leave the session: setsid escapees, daemonizing leaves, nested supervisors. What is found is ended.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, isAlive, waitFor } from '@leap/test-utils';
import {
  SUPERVISE,
  eventsOf,
  exitRecord,
  fixture,
  killStrays,
  makeScene,
  recordedPids,
  startSupervise,
  superviseBin,
  track,
} from './helpers.js';
import { readProc } from '../src/proc-scan.js';

test.after.each(() => killStrays());
test.after(() => cleanupTempDirs());

const QUICK = { VERI_TIMEOUT: '0.5', VERI_KILL_AFTER: '0.3' };

test('S-setsid-escape: a child in a session of its own (F8) is found, killed and reported in NAME.exit and the status line', async () => {
  const scene = makeScene(QUICK);
  const r = await superviseBin(scene, ['escape', fixture('setsid-escape.sh')]);
  const [escapee] = recordedPids(scene, 'escapee');
  assert.ok(escapee !== undefined);
  track(escapee);
  assert.is(r.code, 2);
  const exit = exitRecord(scene, 'escape');
  assert.is(exit?.status, 'killed-timeout');
  assert.is(exit?.escaped, 1);
  assert.is(isAlive(escapee), false);
  assert.match(r.stderr, /supervise\[escape\]: killed-timeout \(leftovers=1 escaped=1\)\n$/);
  assert.is(eventsOf(scene, 'exit', 'escape')[0]?.escaped, 1);
});

test('S-daemonize: a leaf that daemonizes and exits at once (F9) is exited 0, and its daemon is ended and reported', async () => {
  const scene = makeScene();
  const r = await superviseBin(scene, ['daemon', fixture('setsid-escape.sh'), 'exit']);
  const [escapee] = recordedPids(scene, 'escapee');
  assert.ok(escapee !== undefined);
  track(escapee);
  assert.is(r.code, 0);
  const exit = exitRecord(scene, 'daemon');
  assert.is(exit?.status, 'exited');
  assert.is(exit?.escaped, 1);
  assert.is(isAlive(escapee), false);
});

test("S-setsid-util: `setsid sleep` as the leaf (the seed's F9 provocation) leaves nothing running", async () => {
  const scene = makeScene();
  const r = await superviseBin(scene, [
    'setsid-util',
    'sh',
    '-c',
    `setsid sh -c 'echo "escapee $$" >> ${scene.pidsFile}; exec sleep 30' </dev/null >/dev/null 2>&1 & sleep 0.3`,
  ]);
  const [escapee] = recordedPids(scene, 'escapee');
  assert.ok(escapee !== undefined);
  track(escapee);
  assert.is(r.code, 0);
  assert.is(isAlive(escapee), false);
  assert.is(exitRecord(scene, 'setsid-util')?.escaped, 1);
});

test('S-escape-no-env: an escapee that drops its environment is still found while its parent lives (parentage tracking)', async () => {
  const scene = makeScene({ VERI_TIMEOUT: '1.5', VERI_KILL_AFTER: '0.3' });
  const r = await superviseBin(scene, ['no-env', fixture('setsid-escape.sh'), 'clear-env']);
  const [escapee] = recordedPids(scene, 'escapee');
  assert.ok(escapee !== undefined);
  track(escapee);
  assert.is(r.code, 2);
  assert.is(isAlive(escapee), false);
  assert.is(exitRecord(scene, 'no-env')?.escaped, 1);
});

test('S-escape-uncontained: an escapee that drops its environment and is orphaned before a scan is NOT contained (documented limit)', async () => {
  const scene = makeScene();
  // setsid -f forks and its parent exits at once: the escapee is orphaned within a millisecond, outside the
  // session, without the marker. The leaf exits once the escapee has recorded itself (after its setsid).
  const r = await superviseBin(scene, [
    'lost',
    'sh',
    '-c',
    `env -i setsid -f sh -c 'echo "escapee $$" >> ${scene.pidsFile}; exec sleep 30' </dev/null >/dev/null 2>&1; while [ ! -s ${scene.pidsFile} ]; do sleep 0.02; done`,
  ]);
  const [escapee] = recordedPids(scene, 'escapee');
  assert.ok(escapee !== undefined);
  track(escapee);
  assert.is(r.code, 0);
  assert.is(exitRecord(scene, 'lost')?.status, 'exited');
  // This is the documented hole: no marker, no parent alive at a scan, another session. It runs on.
  assert.is(isAlive(escapee), true);
  assert.is(readProc(escapee)?.sid, escapee);
});

/**
 * A supervisor (outer, `outerName`, grace `outerGrace`) whose leaf is another supervisor (`innerName`,
 * grace `innerGrace`) of a leaf that ignores SIGTERM; the outer one is sent SIGTERM once the inner leaf
 * runs. Returns the scene, the inner leaf's pid and the outer supervisor's end.
 */
async function nestedTerm(outerName: string, outerGrace: string, innerName: string, innerGrace: string) {
  const scene = makeScene({ VERI_TIMEOUT: '60', VERI_KILL_AFTER: outerGrace });
  const outer = startSupervise(scene, [
    outerName,
    'env',
    `VERI_KILL_AFTER=${innerGrace}`,
    process.execPath,
    SUPERVISE,
    innerName,
    fixture('ignore-sigterm.sh'),
  ]);
  const inner = await waitFor(() => recordedPids(scene, 'leaf')[0], 15_000);
  assert.ok(inner !== undefined);
  track(inner);
  process.kill(outer.pid, 'SIGTERM');
  const r = await outer.done;
  assert.is(r.code, 2);
  return { scene, inner };
}

test('S-nested: a supervisor inside a leaf (verdict -> verify) is ended with its own leaf when the outer one is', async () => {
  // The inner supervisor's grace is shorter than the outer one's, so it finishes its own sequence first.
  const { scene, inner } = await nestedTerm('verdict-red', '0.5', 'verify-red', '0.1');
  assert.is(exitRecord(scene, 'verdict-red')?.status, 'killed-signal');
  assert.is(isAlive(inner), false);
  // The inner supervisor got our TERM and recorded its own end before it was swept.
  assert.is(exitRecord(scene, 'verify-red')?.status, 'killed-signal');
});

test('S-nested-sigkilled-inner: when the inner supervisor is SIGKILLed by the sweep, its leaf (another session) is still found by the marker', async () => {
  const { scene, inner } = await nestedTerm('verdict-green', '0.2', 'verify-green', '30');
  assert.is(isAlive(inner), false);
  assert.ok((exitRecord(scene, 'verdict-green')?.escaped ?? 0) >= 1);
  assert.is(exitRecord(scene, 'verify-green'), null, 'the inner supervisor never finished its 30 s grace');
});

test.run();
