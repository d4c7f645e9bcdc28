import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '@leap/core';
import { hostileTitles } from '@leap/test-utils';
import { lastValue, takeVerbatim } from '../src/cli-args.js';

const take = suite('takeVerbatim');

take(
  "takes the named options' values verbatim, a value that looks like an option included, and leaves the rest",
  () => {
    const { rest, values } = takeVerbatim(
      ['--step', '-v flag', 'green', '--json', '--tests=a', '--tests', '--b', '--other', 'x'],
      ['step', 'tests'],
      'U',
    );
    assert.equal(rest, ['green', '--json', '--other', 'x']);
    assert.equal(values.get('step'), ['-v flag']);
    assert.equal(values.get('tests'), ['a', '--b'], 'repeated: every value, in order');
    assert.is(lastValue(values, 'tests'), '--b');
    assert.is(lastValue(values, 'step'), '-v flag');
    assert.is(lastValue(values, 'spec'), undefined);
  },
);

take('every hostile title passes as one value, byte for byte, in both spellings', () => {
  for (const title of hostileTitles(40, 7)) {
    assert.is(lastValue(takeVerbatim(['--step', title], ['step'], 'U').values, 'step'), title);
    assert.is(lastValue(takeVerbatim([`--step=${title}`], ['step'], 'U').values, 'step'), title);
  }
});

take('stops at --: what follows is left as it is', () => {
  const { rest, values } = takeVerbatim(['--step', 's', '--', '--step', 't'], ['step'], 'U');
  assert.equal(rest, ['--', '--step', 't']);
  assert.equal(values.get('step'), ['s']);
});

take('a named option without its value is a UsageError that shows the usage', () => {
  assert.throws(
    () => takeVerbatim(['green', '--step'], ['step'], 'Usage: leap-verify'),
    (e: Error) => e instanceof UsageError && e.message === 'option --step needs a value\nUsage: leap-verify',
  );
  // An empty value is a value.
  assert.equal(takeVerbatim(['--step='], ['step'], 'U').values.get('step'), ['']);
});

take.run();
