// What each runner's output says: the counts ground truth compares and the failed tests a flaky verdict names, read
// from the lines the runners print (transcribed from real runs: node 20, vitest 3, jest 29, mocha 10, ava 6,
// pytest 9, unittest, cargo test, go test -v; runners.slow.test.ts reads the same from the runners themselves).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { failedTests, readCounts } from '../src/index.js';

const OUTPUTS: Record<string, { output: string; counts: { ran: number; skipped: number } | null; failed: string[] }> = {
  'node:test (tap)': {
    output:
      '# Subtest: a\n    not ok 2 - fails here\n      ---\nnot ok 1 - /tmp/p/t/a.test.js\n1..1\n# tests 5\n# suites 0\n# pass 1\n# fail 2\n# cancelled 0\n# skipped 1\n# todo 1\n# duration_ms 655.2\n',
    counts: { ran: 3, skipped: 2 },
    failed: ['fails here'],
  },
  'node:test (spec)': {
    output:
      '✖ fails here (1.2ms)\nℹ tests 3\nℹ suites 0\nℹ pass 2\nℹ fail 1\nℹ cancelled 0\nℹ skipped 0\nℹ todo 0\nℹ duration_ms 50\n',
    counts: { ran: 3, skipped: 0 },
    failed: ['fails here'],
  },
  vitest: {
    output:
      '\u001b[31m   × group > fails here 7ms\u001b[39m\n FAIL  v/a.test.js > group > fails here\n Test Files  2 failed (2)\n      Tests  1 failed | 1 passed | 1 skipped | 1 todo (4)\n',
    counts: { ran: 2, skipped: 2 },
    failed: ['v/a.test.js > group > fails here'],
  },
  jest: {
    output:
      'FAIL ./a.test.js\n  ● group › fails here\n\nFAIL ./b.test.js\n  ● Test suite failed to run\nTest Suites: 2 failed, 2 total\nTests:       1 failed, 1 skipped, 1 todo, 1 passed, 4 total\n',
    counts: { ran: 2, skipped: 2 },
    failed: ['group › fails here'],
  },
  mocha: {
    output:
      '  group\n    1) fails here\n\n  1 passing (8ms)\n  1 pending\n  1 failing\n\n  1) group\n       fails here:\n      AssertionError\n',
    counts: { ran: 2, skipped: 1 },
    failed: ['group fails here'],
  },
  ava: {
    output:
      '  ✘ [fail]: fails here\n  ✔ [expected fail] known\n  ─\n\n  1 test failed\n  1 known failure\n  1 test skipped\n  1 test todo\n',
    counts: { ran: 2, skipped: 2 },
    failed: ['fails here'],
  },
  pytest: {
    output:
      'FAILED tests/test_a.py::test_fails - assert 1 == 2\nFAILED tests/test_a.py::TestK::test_u - AssertionError: 1 != 2\n====== 2 failed, 1 passed, 2 skipped, 1 xfailed, 3 deselected in 1.39s ======\n',
    counts: { ran: 3, skipped: 6 },
    failed: ['tests/test_a.py::test_fails', 'tests/test_a.py::TestK::test_u'],
  },
  unittest: {
    output:
      'FAIL: test_u (test_a.TestK.test_u)\n---\nRan 3 tests in 0.001s\n\nFAILED (failures=1, skipped=1, expected failures=1)\n',
    counts: { ran: 1, skipped: 2 },
    failed: ['test_u (test_a.TestK.test_u)'],
  },
  'cargo test': {
    output:
      'test tests::it_works ... ok\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\ntest fails ... FAILED\ntest result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 2 filtered out; finished in 0.1s\n',
    counts: { ran: 3, skipped: 3 },
    failed: ['fails'],
  },
  'go test -v': {
    output:
      '=== RUN   TestPasses\n--- PASS: TestPasses (0.00s)\n=== RUN   TestSkip\n--- SKIP: TestSkip (0.00s)\n=== RUN   TestFails\n    a_test.go:5: boom\n--- FAIL: TestFails (0.00s)\nFAIL\n',
    counts: { ran: 2, skipped: 1 },
    failed: ['TestFails'],
  },
  'go test (no -v): no counts': {
    output: '--- FAIL: TestFails (0.00s)\nFAIL\tex.com/g\t0.002s\nok  \tex.com/h\t0.001s\n',
    counts: null,
    failed: ['TestFails'],
  },
  'a runner it does not know': { output: 'All good!\n', counts: null, failed: [] },
};

const report = suite('test-report: counts and failed tests');

for (const [runner, { output, counts, failed }] of Object.entries(OUTPUTS)) {
  report(runner, () => {
    assert.equal(readCounts(output), counts);
    assert.equal(failedTests(output), failed);
  });
}

report('a command that runs two runners: their counts add up', () => {
  const both = `${OUTPUTS['node:test (tap)']?.output}${OUTPUTS.jest?.output}`;
  assert.equal(readCounts(both), { ran: 5, skipped: 4 });
});

report('a test file that failed to load is named by its path when no test of it is', () => {
  assert.equal(failedTests('not ok 1 - /tmp/p/test/broken.test.js\n# tests 1\n# pass 0\n# fail 1\n'), [
    '/tmp/p/test/broken.test.js',
  ]);
});

report.run();
