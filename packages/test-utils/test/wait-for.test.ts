// waitFor: the value once the check holds; past its bound, an error that says what was awaited.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { waitFor } from '../src/index.js';

test('waitFor returns the first truthy value of the check', async () => {
  let calls = 0;
  const value = await waitFor(() => (++calls >= 3 ? { calls } : null), 5000);
  assert.equal(value, { calls: 3 });
});

test('waitFor throws at its bound, naming what it waited for (or the check) and its last value', async () => {
  try {
    await waitFor(() => 0, 30, 'the worker to print its pid');
    assert.unreachable('a wait that never came must fail');
  } catch (error) {
    assert.match(
      (error as Error).message,
      /^waitFor: the worker to print its pid: still not so after 30 ms \(last value 0\)$/,
    );
  }
  const marker: string = 'never-there';
  await waitFor(() => marker === 'x', 20).then(
    () => assert.unreachable('must throw'),
    (error: Error) =>
      assert.match(
        error.message,
        /waitFor: \(\) ?=> ?marker ?=== ?["']x["']: still not so after 20 ms \(last value false\)/,
      ),
  );
});

test.run();
