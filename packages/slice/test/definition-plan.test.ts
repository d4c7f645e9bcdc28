import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LeapError } from '@leap/core';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import { dependencyCycles, planWaves, type Slice } from '../src/definition/index.js';
import { leapSlice } from './engine-helpers.js';

function sliceOf(deps: Record<string, string[]>): Slice {
  return {
    id: 'p',
    base: 'HEAD',
    spine: 'integrator',
    balls: Object.entries(deps).map(([id, d]) => ({
      id,
      goal: 'g',
      spec: '',
      scope: [{ path: `${id}.js`, sha256: null }],
      proof: { argv: ['true'] },
      rollback: '',
      deps: d,
    })),
  };
}

// ---

const waves = suite('planWaves');

waves('dependency order; file order within a wave; a ball waits for its deepest dependency', () => {
  assert.equal(planWaves(sliceOf({ c: ['a', 'b'], b: [], a: [] })), [['b', 'a'], ['c']]);
  assert.equal(planWaves(sliceOf({ d: ['c'], a: [], c: ['b'], b: ['a'], e: ['a'] })), [
    ['a'],
    ['b', 'e'],
    ['c'],
    ['d'],
  ]);
  assert.equal(planWaves(sliceOf({ x: [], y: [], z: [] })), [['x', 'y', 'z']]);
  assert.equal(planWaves(sliceOf({ top: ['mid', 'low'], mid: ['low'], low: [] })), [['low'], ['mid'], ['top']]);
});

waves('a long chain and a wide fan are planned', () => {
  const chain: Record<string, string[]> = {};
  for (let i = 0; i < 500; i++) chain[`b${i}`] = i === 0 ? [] : [`b${i - 1}`];
  assert.is(planWaves(sliceOf(chain)).length, 500);
  // Deeper than a recursive walk's stack: the walk keeps its own, so the last ball's wave is its depth.
  const deep: Record<string, string[]> = {};
  for (let i = 0; i < 20_000; i++) deep[`b${i}`] = i === 19_999 ? [] : [`b${i + 1}`];
  const planned = planWaves(sliceOf(deep));
  assert.is(planned.length, 20_000);
  assert.equal([planned[0], planned[19_999]], [['b19999'], ['b0']]);
  const fan: Record<string, string[]> = {};
  for (let i = 0; i < 1000; i++) fan[`b${i}`] = [];
  assert.equal(
    planWaves(sliceOf(fan)).map((w) => w.length),
    [1000],
  );
});

waves('a cycle or an unknown dependency (a slice that skipped validation) throws, naming it', () => {
  assert.throws(
    () => planWaves(sliceOf({ a: ['b'], b: ['a'], c: [] })),
    (e: LeapError) => e.exitCode === 2 && e.message === 'slice "p": dependency cycle: "a" -> "b" -> "a"',
  );
  assert.throws(
    () => planWaves(sliceOf({ a: ['ghost'] })),
    (e: LeapError) => e.message === 'slice "p": ball "a" depends on "ghost", which is not a ball of this slice',
  );
});

waves.run();

// ---

const cycles = suite('dependencyCycles');

cycles('each cycle once, as its path; none in a DAG', () => {
  assert.equal(
    dependencyCycles(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    [],
  );
  assert.equal(dependencyCycles(new Map([['a', ['a']]])), [['a']]);
  assert.equal(
    dependencyCycles(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', ['a']],
        ['d', ['c']],
      ]),
    ),
    [['a', 'b', 'c']],
  );
  assert.equal(
    dependencyCycles(
      new Map([
        ['a', ['b', 'c']],
        ['b', ['a']],
        ['c', ['a']],
      ]),
    ),
    [
      ['a', 'b'],
      ['a', 'c'],
    ],
  );
  assert.equal(dependencyCycles(new Map([['a', ['missing']]])), []);
});

cycles.run();

// ---

const cli = suite('leap slice plan');

cli.after.each(cleanupTempDirs);

cli('text and --json', async () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, 's.json'), JSON.stringify(sliceOf({ lexer: [], ast: [], parser: ['lexer', 'ast'] })));
  assert.equal(await leapSlice(dir, ['plan', 's.json']), {
    code: 0,
    stdout:
      'slice p: 3 balls in 2 waves, spine integrator\nwave 1:\n  lexer\n  ast\nwave 2:\n  parser  (after lexer, ast)\n',
    stderr: '',
  });
  const json = await leapSlice(dir, ['plan', 's.json', '--json']);
  assert.equal(JSON.parse(json.stdout), {
    slice: 'p',
    spine: 'integrator',
    waves: [['lexer', 'ast'], ['parser']],
    deps: { lexer: [], ast: [], parser: ['lexer', 'ast'] },
  });
});

cli('an invalid slice is bad input (exit 2), every violation named; so is a missing FILE', async () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, 's.json'), JSON.stringify(sliceOf({ a: ['b'], b: ['a'] })));
  assert.equal(await leapSlice(dir, ['plan', 's.json']), {
    code: 2,
    stdout: '',
    stderr: `leap: ${join(dir, 's.json')}: dependency cycle: "a" -> "b" -> "a" (each depends on the next)\n`,
  });
  assert.is((await leapSlice(dir, ['plan'])).code, 2);
  assert.match((await leapSlice(dir, ['plan', '-h'])).stdout, /^Usage: leap slice plan FILE \[--json\]/);
});

cli('after --, a FILE named --help is a file, not a call for help', async () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, '--help'), JSON.stringify(sliceOf({ a: [] })));
  const planned = await leapSlice(dir, ['plan', '--json', '--', '--help']);
  assert.is(planned.code, 0, planned.stderr);
  assert.equal(JSON.parse(planned.stdout).waves, [['a']]);
});

cli.run();
