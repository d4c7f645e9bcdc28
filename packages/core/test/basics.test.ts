import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import {
  FileFormatError,
  InternalError,
  LeapError,
  UsageError,
  showValue,
  formatKeyValues,
  parseKeyValues,
  parseDuration,
  formatSeconds,
  leafRole,
  findRepoRoot,
  resolveStateDir,
  statePaths,
  checkLeafName,
  checkIssue,
} from '../src/index.js';

// ---
const errors = suite('errors');
errors('LeapError carries its exit code and cause; FileFormatError names file and line', () => {
  const cause = new Error('root');
  const e = new LeapError('boom', { exitCode: 5, cause });
  assert.is(e.exitCode, 5);
  assert.is(e.cause, cause);
  assert.is(e.name, 'LeapError');
  assert.is(new UsageError('u').exitCode, 2);
  assert.is(new InternalError('i').name, 'InternalError');
  const f = new FileFormatError('a.md', 7, 'bad step');
  assert.is(f.message, 'a.md:7: bad step');
  assert.is(f.line, 7);
  assert.is(new FileFormatError('a.md', undefined, 'x').message, 'a.md: x');
  assert.is(showValue('a b'), '"a b"');
  assert.is(showValue(3), '3');
});
errors.run();

// ---
const keyValues = suite('key-value');
keyValues('round trip skips undefined and flattens newlines', () => {
  const text = formatKeyValues('0', { status: 'exited', code: 0, signal: undefined, none: null, msg: 'a\nb' });
  assert.is(text, '0\nstatus=exited\ncode=0\nmsg=a b\n');
  const parsed = parseKeyValues(text);
  assert.is(parsed.first, '0');
  assert.equal(parsed.values, { status: 'exited', code: '0', msg: 'a b' });
  assert.is(formatKeyValues(null, { a: 1 }), 'a=1\n');
  assert.equal(parseKeyValues('').values, {});
  assert.equal(parseKeyValues('x\nnoequals\n=v\nk=v=w').values, { k: 'v=w' });
});
keyValues.run();

// ---
const duration = suite('parseDuration');
duration('accepts seconds, fractions and suffixes', () => {
  assert.is(parseDuration('T', '90'), 90_000);
  assert.is(parseDuration('T', '10.34'), 10_340);
  assert.is(parseDuration('T', '9.999999999'), 10_000);
  assert.is(parseDuration('T', '.5s'), 500);
  assert.is(parseDuration('T', '2m'), 120_000);
  assert.is(parseDuration('T', '1h'), 3_600_000);
  assert.is(parseDuration('T', '1d'), 86_400_000);
  assert.is(parseDuration('T', ' 3 '), 3000);
  assert.is(parseDuration('T', '1e3'), 1_000_000);
});
duration('0 is no limit; a tiny positive value is at least 1 ms; a huge one stays finite', () => {
  assert.is(parseDuration('T', '0'), 0);
  assert.is(parseDuration('T', '0.0s'), 0);
  assert.is(parseDuration('T', '1e-10000'), 1);
  assert.is(parseDuration('T', '0.0000001'), 1);
  assert.ok(parseDuration('T', '1e400') > 2 ** 31);
  assert.ok(Number.isFinite(parseDuration('T', '1e400')));
  assert.is(parseDuration('T', '30d'), 2_592_000_000);
});
duration('negative, malformed or unknown-suffix values name the variable and the value', () => {
  for (const bad of ['-1', ' -0.1', '-1e-10000', 'abc', '42D', '', '1 s', '1ss', 'NaN', 'Infinity', '5ms']) {
    try {
      parseDuration('VERI_TIMEOUT', bad);
      assert.unreachable(`accepted ${JSON.stringify(bad)}`);
    } catch (error) {
      assert.instance(error, UsageError);
      assert.match((error as Error).message, 'VERI_TIMEOUT');
      assert.match((error as Error).message, JSON.stringify(bad));
    }
  }
});
duration('formatSeconds', () => {
  assert.is(formatSeconds(0), '0');
  assert.is(formatSeconds(1500), '1.5s');
});
duration.run();

// ---
const role = suite('leafRole');
role('TDD leaves', () => {
  assert.equal(leafRole('develop-red'), { actor: 'developer', phase: 'red', attempt: 1 });
  assert.equal(leafRole('develop-green-2'), { actor: 'developer', phase: 'green', attempt: 2 });
  assert.equal(leafRole('verify-refactor'), { actor: 'verifier', phase: 'refactor', attempt: 1 });
  assert.equal(leafRole('verdict-refactor'), { actor: 'verifier', phase: 'refactor', attempt: 1 });
  assert.equal(leafRole('plan'), { actor: 'planner', phase: 'plan', attempt: 1 });
  assert.equal(leafRole('plan-3'), { actor: 'planner', phase: 'plan', attempt: 3 });
});
role('LEAP leaves', () => {
  assert.equal(leafRole('build-parser-2'), { actor: 'builder', phase: 'build', attempt: 2, ball: 'parser' });
  assert.equal(leafRole('build-io-layer-1'), { actor: 'builder', phase: 'build', attempt: 1, ball: 'io-layer' });
  assert.equal(leafRole('review-parser-openai'), {
    actor: 'reviewer',
    phase: 'review',
    attempt: 1,
    ball: 'parser',
    family: 'openai',
  });
});
role('unknown shapes are errors, never guesses', () => {
  for (const bad of [
    '',
    'develop',
    'develop-blue',
    'develop-red-0',
    'develop-red-x',
    'develop-red-2-3',
    'verify',
    'plan-a',
    'plan-1-2',
    'build-x',
    'build-x-y',
    'build--1',
    'review-x',
    'deploy-red',
    'Develop-red',
  ]) {
    assert.throws(
      () => leafRole(bad),
      (e: Error) => e instanceof UsageError && e.message.includes(JSON.stringify(bad)),
      bad,
    );
  }
});
role.run();

// ---
const state = suite('state folder');
state.after(cleanupTempDirs);
state('findRepoRoot walks up to .git (a folder or a worktree file)', () => {
  const root = makeTempDir();
  mkdirSync(join(root, '.git'));
  mkdirSync(join(root, 'a', 'b'), { recursive: true });
  assert.is(findRepoRoot(join(root, 'a', 'b')), root);
  const wt = makeTempDir();
  writeFileSync(join(wt, '.git'), 'gitdir: /elsewhere\n');
  assert.is(findRepoRoot(wt), wt);
  assert.is(findRepoRoot('/'), null);
});
state('resolveStateDir honours VERI_STATE_DIR, else .tdd at the root, else below cwd', () => {
  const root = makeTempDir();
  mkdirSync(join(root, '.git'));
  mkdirSync(join(root, 'sub'));
  assert.is(resolveStateDir({}, join(root, 'sub')), join(root, '.tdd'));
  assert.is(resolveStateDir({ VERI_STATE_DIR: 'st' }, root), join(root, 'st'));
  assert.is(resolveStateDir({ VERI_STATE_DIR: '/abs/x' }, root), '/abs/x');
  assert.is(resolveStateDir({ VERI_STATE_DIR: '' }, root), join(root, '.tdd'));
  const bare = makeTempDir();
  assert.is(resolveStateDir({}, bare), join(bare, '.tdd'));
});
state('statePaths names every file of CONTRACT section 2', () => {
  const p = statePaths('/s');
  assert.is(p.pid('develop-red'), '/s/develop-red.pid');
  assert.is(p.exit('x'), '/s/x.exit');
  assert.is(p.out('x'), '/s/x.out');
  assert.is(p.err('x'), '/s/x.err');
  assert.is(p.sock('x'), '/s/x.sock');
  assert.is(p.events, '/s/events.jsonl');
  assert.is(p.ledger(7), '/s/issue-7.md');
  assert.is(p.timeout(7), '/s/issue-7-timeout');
  assert.is(p.skillCommit(7), '/s/issue-7-skill-commit');
  assert.is(p.stop, '/s/stop');
  assert.is(p.issue(7), '/s/issues/7.md');
  assert.is(p.thread(7), '/s/issues/7.thread.md');
  assert.throws(
    () => p.pid('../x'),
    (e: Error) => e instanceof UsageError,
  );
});
state('checkLeafName and checkIssue refuse what cannot name a file', () => {
  for (const bad of ['', '.', '..', 'a/b', '../x', 'a\0b', '-x'])
    assert.throws(
      () => checkLeafName(bad),
      (e: Error) => e instanceof UsageError,
    );
  assert.is(checkLeafName("it's-ok é"), "it's-ok é");
  assert.is(checkIssue('12'), 12);
  assert.is(checkIssue(3), 3);
  for (const bad of ['0', '-1', '1.5', 'x', '', '01', '9007199254740993'])
    assert.throws(() => checkIssue(bad, 'VERI_ISSUE'), /VERI_ISSUE/);
  assert.is(checkIssue('9007199254740991'), Number.MAX_SAFE_INTEGER, 'the largest that keeps its value');
});
state.run();

// ---
const roles = suite('isReadOnlyRole');
roles('verifiers, reviewers and planners are read-only; developers and builders write', async () => {
  const { isReadOnlyRole, READ_ONLY_ROLES } = await import('../src/role.js');
  assert.equal([...READ_ONLY_ROLES].sort(), ['planner', 'reviewer', 'verifier']);
  assert.equal((['developer', 'builder', 'verifier', 'reviewer', 'planner'] as const).map(isReadOnlyRole), [
    false,
    false,
    true,
    true,
    true,
  ]);
});
roles.run();
