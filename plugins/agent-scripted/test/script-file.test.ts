import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import { checkScript, readScript } from '../src/index.js';

const read = suite('readScript');
read.after.each(cleanupTempDirs);

read('reads an object or a bare array of moves', () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, 'a.json'), '{"family":"g.1","moves":[{"answer":"x"}]}');
  writeFileSync(
    join(dir, 'b.json'),
    '[{"answer":{"a":1},"sleep_ms":0,"hang":false,"exit":0,"stderr":"","commit":"m","edits":[{"path":"p","content":""},{"path":"q","delete":true}]}]',
  );
  assert.equal(readScript(join(dir, 'a.json')), { family: 'g.1', moves: [{ answer: 'x' }] });
  assert.is(readScript(join(dir, 'b.json')).family, null);
});

read('names the file when it is not JSON', () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, 'c.json'), '{oops');
  assert.throws(() => readScript(join(dir, 'c.json')), /c\.json: expected JSON, found a parse error/);
});

read.run();

// ---

const check = suite('checkScript');

check('names the move and the field that is wrong', () => {
  const cases: Array<[unknown, RegExp]> = [
    [42, /f: expected an object with a "moves" array/],
    [{ moves: 'x' }, /expected an object with a "moves" array/],
    [{ family: 'a b', moves: [] }, /expected "family" to be a word .* found "a b"/],
    [[1], /f: move 0: expected an object, found 1/],
    [[[]], /move 0: expected an object, found "\[\]"/],
    [[{}, { answr: 'x' }], /move 1: expected one of the fields answer, .*, found "answr"/],
    [[{ stderr: 1 }], /"stderr" to be a string/],
    [[{ commit: '' }], /"commit" to be a non-empty message/],
    [[{ sleep_ms: -1 }], /"sleep_ms" to be a non-negative number, found -1/],
    [[{ hang: 'yes' }], /"hang" to be a boolean/],
    [[{ wait_for: '../go' }], /"wait_for" to be a file name in SCRIPT.state\//],
    [[{ exit: 256 }], /"exit" to be an integer from 0 to 255, found 256/],
    [[{ edits: {} }], /"edits" to be an array/],
    [[{ edits: [{ path: 'a' }] }], /each edit to be/],
    [[{ edits: [{ path: 'a', content: 'x', delete: true }] }], /each edit to be/],
    [[{ edits: [null] }], /each edit to be .* found "null"/],
  ];
  for (const [data, message] of cases) assert.throws(() => checkScript(data, 'f'), message);
});

check.run();
