// Runners found by name: the package a name stands for, the name in argv before the parse, the help lines.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError, runnerNameIn, runnerUsage } from '../src/index.js';
import { runnerPackage } from '../src/runner-plugin.js';

test('runnerPackage: a short name is @leap/runner-NAME, a package name is itself, anything else is refused', () => {
  assert.is(runnerPackage('bullmq'), '@leap/runner-bullmq');
  assert.is(runnerPackage('k8s-jobs'), '@leap/runner-k8s-jobs');
  assert.is(runnerPackage('@acme/runner-x'), '@acme/runner-x');
  assert.is(runnerPackage('leap.runner_x'), 'leap.runner_x');
  for (const bad of ['', 'Bad', '../x', '@acme/', 'a b', '$(touch x)', '@a/b/c']) {
    assert.throws(
      () => runnerPackage(bad),
      (e: unknown) => e instanceof UsageError && e.exitCode === 2 && e.message.includes(JSON.stringify(bad)),
      bad,
    );
  }
});

test('runnerNameIn: --runner NAME and --runner=NAME, the last one wins, nothing after --', () => {
  assert.is(runnerNameIn(['run', 'f.json']), undefined);
  assert.is(runnerNameIn(['run', 'f.json', '--runner', 'bullmq', '--redis', 'u']), 'bullmq');
  assert.is(runnerNameIn(['--runner=local', 'f', '--runner=@acme/r']), '@acme/r');
  assert.is(runnerNameIn(['f', '--', '--runner', 'x']), undefined);
  assert.is(runnerNameIn(['f', '--runner']), undefined);
});

test('runnerUsage: one aligned line per option, the value placeholder after the flag', () => {
  assert.is(
    runnerUsage({
      name: 'q',
      options: { url: { type: 'string', value: 'URL', help: 'the server' }, fast: { type: 'boolean', help: 'go' } },
    }),
    'Options of --runner q:\n  --url URL  the server\n  --fast     go',
  );
});

test.run();
