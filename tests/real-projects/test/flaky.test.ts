// The re-run of a run their own flaky test failed: only such a run is made again, at most three times in all;
// a failure that names no listed test stands at once, as does any failure of a project that lists none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { beyondTheirFlaky, failsTheirFlaky, type Project, projects, ranIntoTheirFlaky } from './projects.js';

const lru = projects().find((p) => p.name === 'quick-lru') as Project;
const listed = Object.keys(lru.flaky ?? {})[0] as string;
/** An attempt that answers `outs` one by one (then 'ok'), counting its calls. */
const answers = (outs: string[]) => {
  let calls = 0;
  return { calls: () => calls, attempt: async () => outs[calls++] ?? 'ok' };
};

test('the projects that list flaky tests: quick-lru, each with why', () => {
  assert.equal(
    projects()
      .filter((p) => p.flaky !== undefined)
      .map((p) => p.name),
    ['quick-lru'],
  );
  assert.ok(Object.values(lru.flaky ?? {}).every((why) => why.length > 20));
});

test('a failure that names no listed test is attempted once: an attacker cannot hide behind their flakiness', async () => {
  const run = answers(['✖ should evict the oldest item: expected 2, got 3']);
  const out = await beyondTheirFlaky(lru, run.attempt, (o) => ranIntoTheirFlaky(lru, { out: o, suites: '' }));
  assert.is(out, '✖ should evict the oldest item: expected 2, got 3');
  assert.is(run.calls(), 1);
});

test('a run their flaky test failed is made again until it passes, three times in all at most', async () => {
  const twice = answers([`✖ ${listed}`, 'ok']);
  assert.is(await beyondTheirFlaky(lru, twice.attempt, (o) => ranIntoTheirFlaky(lru, { out: o, suites: '' })), 'ok');
  assert.is(twice.calls(), 2);
  const always = answers([`✖ ${listed}`, `✖ ${listed}`, `✖ ${listed}`, 'ok']);
  const out = await beyondTheirFlaky(lru, always.attempt, (o) => ranIntoTheirFlaky(lru, { out: '', suites: o }));
  assert.is(out, `✖ ${listed}`, 'the third failure stands');
  assert.is(always.calls(), 3);
});

test('a project that lists no flaky test is never run again', async () => {
  const plain = projects().find((p) => p.flaky === undefined) as Project;
  const run = answers([`✖ ${listed}`, 'ok']);
  await beyondTheirFlaky(plain, run.attempt, () => true);
  assert.is(run.calls(), 1);
});

test('a suite line that passes their flaky test (✔) is not a failure of it; any other line naming it is', () => {
  assert.is(failsTheirFlaky(lru, `✔ ${listed} (12ms)`), false);
  assert.is(failsTheirFlaky(lru, `✔ ${listed}\n✖ another test`), false);
  assert.is(failsTheirFlaky(lru, `✖ ${listed}`), true);
  assert.is(failsTheirFlaky(lru, `not ok 3 - ${listed}`), true);
});

test.run();
