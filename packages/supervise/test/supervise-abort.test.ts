// supervise()'s abort signal: a caller that watches the leaf itself ends it through the kill sequence.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, isAlive, waitFor } from '@leap/test-utils';
import { supervise } from '../src/supervise.js';
import { eventsOf, exitRecord, fixture, killStrays, makeScene, recordedPids, track } from './helpers.js';

test.after.each(() => killStrays());
test.after(() => cleanupTempDirs());

test('abort: the leaf and its grandchild end, recorded killed-stuck with code 2, never killed-external', async () => {
  const scene = makeScene();
  const abort = new AbortController();
  const running = supervise({
    name: 'watched',
    command: fixture('spawn-grandchild.sh'),
    cwd: scene.repo,
    env: { ...scene.env, VERI_KILL_AFTER: '0.3' },
    abort: abort.signal,
  });
  const pids = await waitFor(() => (recordedPids(scene).length >= 3 ? recordedPids(scene) : null), 10_000);
  assert.ok(pids, 'the leaf, its child and its grandchild never all recorded their pids');
  for (const pid of pids) track(pid);
  abort.abort();
  const result = await running;
  assert.is(result.status, 'killed-stuck');
  assert.is(result.code, 2);
  assert.is(exitRecord(scene, 'watched')?.status, 'killed-stuck');
  assert.is(eventsOf(scene, 'exit', 'watched')[0]?.status, 'killed-stuck');
  for (const pid of pids) assert.not.ok(isAlive(pid), `pid ${pid} outlived the abort`);
});

test('abort: a signal already aborted ends the leaf as soon as it starts', async () => {
  const scene = makeScene();
  const abort = new AbortController();
  abort.abort();
  const result = await supervise({
    name: 'early',
    command: 'sleep',
    args: ['30'],
    cwd: scene.repo,
    env: scene.env,
    abort: abort.signal,
  });
  assert.is(result.status, 'killed-stuck');
});

test('abort: aborting after the leaf exited changes nothing', async () => {
  const scene = makeScene();
  const abort = new AbortController();
  const result = await supervise({
    name: 'done',
    command: 'sh',
    args: ['-c', 'exit 4'],
    cwd: scene.repo,
    env: scene.env,
    abort: abort.signal,
  });
  abort.abort();
  assert.equal([result.status, result.code], ['exited', 4]);
});

test.run();
