// Long timers (any duration, monotonic, never synchronous) and the folder watch that never throws.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir, waitFor } from '@leap/test-utils';
import { setLongTimeout, sleep } from '../src/long-timer.js';
import { watchDir } from '../src/wait-leaf.js';
import { monitorInterval, TRACK_INTERVAL_MS } from '../src/run-leaf.js';

test.after(() => cleanupTempDirs());

test('setLongTimeout: a duration beyond one Node timer (30 days, 1e300 ms) neither fires early nor warns (C-25..C-29)', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.name);
  process.on('warning', onWarning);
  let fired = 0;
  const cancels = [30 * 86_400_000, 1e300, Number.MAX_VALUE].map((ms) => setLongTimeout(() => fired++, ms));
  await sleep(100);
  for (const cancel of cancels) cancel();
  process.off('warning', onWarning);
  assert.is(fired, 0);
  assert.equal(
    warnings.filter((w) => w === 'TimeoutOverflowWarning'),
    [],
  );
});

test('setLongTimeout: fires once after its delay, never synchronously (even for 0), and can be cancelled', async () => {
  let fired = 0;
  setLongTimeout(() => fired++, 0);
  assert.is(fired, 0, 'not synchronous');
  await waitFor(() => fired === 1, 2000);
  const t0 = performance.now();
  await new Promise<void>((resolve) => setLongTimeout(resolve, 50));
  assert.ok(performance.now() - t0 >= 49);
  const cancel = setLongTimeout(() => fired++, 20, true);
  cancel();
  cancel();
  await sleep(60);
  assert.is(fired, 1);
});

// ---

test('watchDir: reports a file renamed into the folder; close stops it', async () => {
  const dir = makeTempDir();
  const seen: (string | null)[] = [];
  const watch = watchDir(dir, (file) => seen.push(file));
  assert.ok(watch.active);
  writeFileSync(join(dir, '.tmp'), '1');
  const { renameSync } = await import('node:fs');
  renameSync(join(dir, '.tmp'), join(dir, 'leaf.exit'));
  await waitFor(() => seen.includes('leaf.exit'), 2000);
  assert.ok(seen.includes('leaf.exit'));
  watch.close();
  assert.not.ok(watch.active);
  watch.close();
});

test('watchDir: a folder that does not exist gives an inactive watch, not an error (ENOENT)', () => {
  const watch = watchDir(join(makeTempDir(), 'missing'), () => {});
  assert.not.ok(watch.active);
  watch.close();
});

// ---

test('monitorInterval: a quarter of the idle limit between 25 ms and the tracking interval; tracking only without one', () => {
  assert.is(monitorInterval(0), TRACK_INTERVAL_MS);
  assert.is(monitorInterval(400), 100);
  assert.is(monitorInterval(40), 25);
  assert.is(monitorInterval(86_400_000), TRACK_INTERVAL_MS);
});

test.run();
