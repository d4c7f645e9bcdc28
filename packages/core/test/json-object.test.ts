import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isJsonObject, parseJsonObject, previewText } from '../src/index.js';

const json = suite('json-object');

json('isJsonObject: plain objects only', () => {
  assert.ok(isJsonObject({ a: 1 }));
  for (const value of [null, [], 'x', 1, undefined]) assert.not.ok(isJsonObject(value), String(value));
});

json('parseJsonObject: one object, else null, never a throw', () => {
  assert.equal(parseJsonObject('{"type":"result","n":1}'), { type: 'result', n: 1 });
  for (const text of ['', '[1]', '{"torn', 'null', ' {"a":1}', '{"a":1} trailing']) assert.is(parseJsonObject(text), null, text);
});

json('previewText: quoted, cut at the limit with an ellipsis', () => {
  assert.is(previewText('it\'s "x"'), '"it\'s \\"x\\""');
  assert.is(previewText('a'.repeat(130)), JSON.stringify(`${'a'.repeat(120)}…`));
  assert.is(previewText('abcdef', 3), '"abc…"');
});

json.run();
