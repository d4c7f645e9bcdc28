import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  FileFormatError,
  didYouMean,
  isJsonObject,
  parseJsonObject,
  parseJsonText,
  previewText,
} from '../src/index.js';
import { keyLineColumn, lineColumn } from '../src/read-file.js';

const json = suite('json-object');

json('isJsonObject: plain objects only', () => {
  assert.ok(isJsonObject({ a: 1 }));
  for (const value of [null, [], 'x', 1, undefined]) assert.not.ok(isJsonObject(value), String(value));
});

json('parseJsonObject: one object, else null, never a throw', () => {
  assert.equal(parseJsonObject('{"type":"result","n":1}'), { type: 'result', n: 1 });
  for (const text of ['', '[1]', '{"torn', 'null', ' {"a":1}', '{"a":1} trailing'])
    assert.is(parseJsonObject(text), null, text);
});

json('previewText: quoted, cut at the limit with an ellipsis', () => {
  assert.is(previewText('it\'s "x"'), '"it\'s \\"x\\""');
  assert.is(previewText('a'.repeat(130)), JSON.stringify(`${'a'.repeat(120)}…`));
  assert.is(previewText('abcdef', 3), '"abc…"');
});

json('parseJsonText: a syntax error is a FileFormatError at file:line:column, without the offset', () => {
  assert.equal(parseJsonText('f.json', '{"a": [1]}'), { a: [1] });
  const cases: [string, string][] = [
    ['{\n  "a": 1\n  "b": 2\n}', 'f.json:3:3: not JSON: '],
    ['{"a": ', 'f.json:1:6: not JSON: Unexpected end of JSON input'],
    ['', 'f.json:1:1: not JSON: Unexpected end of JSON input'],
  ];
  for (const [text, start] of cases) {
    try {
      parseJsonText('f.json', text);
      assert.unreachable(text);
    } catch (error) {
      assert.ok(error instanceof FileFormatError && error.exitCode === 2);
      assert.ok((error as Error).message.startsWith(start), (error as Error).message);
      assert.not.match((error as Error).message, /position/);
    }
  }
  assert.equal(lineColumn('ab\ncd', 4), { line: 2, column: 2 });
  assert.equal(keyLineColumn('{\n  "x": 1,\n  "a.b": 2\n}', 'a.b'), { line: 3, column: 3 });
  assert.equal(keyLineColumn('{}', 'gone'), { line: 1, column: 1 });
});

json('didYouMean: a near name (a typo, a swap, a start), never a far one or the word itself', () => {
  assert.is(didYouMean('stauts', ['status', 'report']), ' (did you mean "status"?)');
  assert.is(didYouMean('--jsn', ['--json', '--dir']), ' (did you mean "--json"?)');
  assert.is(didYouMean('rep', ['status', 'report']), ' (did you mean "report"?)');
  assert.is(didYouMean('frobnicate', ['status', 'report']), '');
  assert.is(didYouMean('x', ['y']), '');
  assert.is(didYouMean('go', ['stop']), '');
});

json.run();
