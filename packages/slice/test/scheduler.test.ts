// The scheduler's decisions are plain data in and out (src/engine/scheduler.ts): each ball's next move from its
// dependencies' results, with no git, no files and no engine.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Ball } from '../src/definition/slice-schema.js';
import type { ResultRecord } from '../src/engine/records.js';
import { freshProgress, nextMove, passedIds, progressOf } from '../src/engine/scheduler.js';

const ball = (id: string, deps: string[] = []): Ball =>
  ({
    id,
    goal: `goal ${id}`,
    spec: '',
    scope: [{ path: `src/${id}.txt`, sha256: null }],
    proof: { argv: ['true'] },
    rollback: '',
    deps,
  }) as Ball;
const result = (receipt: -1 | 0 | 1, blockedBy?: string[]): ResultRecord => ({
  receipt,
  reason: 'r',
  candidate: null,
  rounds: 1,
  merged: null,
  ts: '',
  commit: null,
  ...(blockedBy === undefined ? {} : { blockedBy }),
});

const test = suite('the scheduler');

test("waves number the balls; an unknown ball is the engine's own error, not undefined", () => {
  const balls = freshProgress([ball('a'), ball('b', ['a'])], [['a'], ['b']]);
  assert.equal([progressOf(balls, 'a').wave, progressOf(balls, 'b').wave], [1, 2]);
  assert.throws(() => progressOf(balls, 'ghost'), /the engine has no ball "ghost"/);
  assert.throws(
    () => freshProgress([ball('a')], [['a', 'z']]),
    /the plan names ball "z", which the slice does not hold/,
  );
});

test('a ball starts once every dependency passed, waits while one runs, and has ended once it has a result', () => {
  const balls = freshProgress([ball('a'), ball('b'), ball('c', ['a', 'b'])], [['a', 'b'], ['c']]);
  assert.equal(nextMove(balls, 'a'), { kind: 'start' });
  assert.equal(nextMove(balls, 'c'), { kind: 'wait' });
  progressOf(balls, 'a').result = result(1);
  assert.equal(nextMove(balls, 'c'), { kind: 'wait' }, 'b has not ended');
  assert.equal(nextMove(balls, 'a'), { kind: 'ended' });
  progressOf(balls, 'b').result = result(1);
  assert.equal(nextMove(balls, 'c'), { kind: 'start' });
  assert.equal(passedIds(balls), ['a', 'b']);
});

test('a refusal blocks every descendant, through blocked ones too; a hold holds the next, and a refusal wins over a hold', () => {
  const balls = freshProgress(
    [ball('a'), ball('h'), ball('b', ['a']), ball('c', ['b']), ball('d', ['a', 'h']), ball('e', ['h'])],
    [['a', 'h'], ['b', 'd', 'e'], ['c']],
  );
  progressOf(balls, 'a').result = result(-1);
  progressOf(balls, 'h').result = result(0);
  assert.equal(nextMove(balls, 'b'), { kind: 'block', on: ['a'], why: 'refused' });
  progressOf(balls, 'b').result = result(0, ['a']);
  assert.equal(
    nextMove(balls, 'c'),
    { kind: 'block', on: ['b'], why: 'refused' },
    'b was blocked by a refusal: c is blocked, not held',
  );
  assert.equal(nextMove(balls, 'd'), { kind: 'block', on: ['a'], why: 'refused' });
  assert.equal(nextMove(balls, 'e'), { kind: 'block', on: ['h'], why: 'held' });
  assert.equal(passedIds(balls), []);
});

test.run();
