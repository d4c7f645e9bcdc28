import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { lastVerdictObject, parseWholeJson } from '../src/index.js';

const whole = suite('parseWholeJson');

whole('one JSON value, optionally in one code fence', () => {
  assert.equal(parseWholeJson(' {"verdict":"PASS","reason":"r"}\n'), { value: { verdict: 'PASS', reason: 'r' } });
  assert.equal(parseWholeJson('```json\n{"a":1}\n```'), { value: { a: 1 } });
  assert.equal(parseWholeJson('~~~\n[1]\n~~~'), { value: [1] });
});

whole('prose around the JSON, two objects or garbage are not that JSON', () => {
  assert.is(parseWholeJson('Sure! {"verdict":"PASS","reason":"r"}'), null);
  assert.is(parseWholeJson('{"a":1}\n{"b":2}'), null);
  assert.is(parseWholeJson(''), null);
});

whole.run();

// ---

const last = suite('lastVerdictObject');

last('takes the last object carrying a verdict, fences and prose ignored', () => {
  const text =
    'Thinking {not json} then {"verdict":"refuse","x":"}"}\n```json\n{"verdict":"pass","findings":["[info] a {b}"]}\n```\n{"other":1}';
  assert.equal(lastVerdictObject(text), { verdict: 'pass', findings: ['[info] a {b}'] });
});

last('nested objects count as one; escaped quotes are respected', () => {
  assert.equal(lastVerdictObject('{"verdict":"pass","meta":{"verdict":"inner"},"s":"a\\"}b"}'), {
    verdict: 'pass',
    meta: { verdict: 'inner' },
    s: 'a"}b',
  });
});

last('null when no object has a verdict', () => {
  assert.is(lastVerdictObject('no json here'), null);
  assert.is(lastVerdictObject('{"a":1} {unclosed'), null);
  assert.is(lastVerdictObject('["verdict"]'), null);
});

last.run();
