import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync, existsSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import {
  readRunContext,
  readDurationVar,
  checkOneOf,
  readStopRequest,
  requestStop,
  clearStop,
  UsageError,
  DEFAULT_TIMEOUT_S,
  envIssue,
  readEventContextAnyway,
  readTimeLimit,
} from '../src/index.js';

// ---
const context = suite('readRunContext');
context.after(cleanupTempDirs);
context('defaults: no issue, 900 s', () => {
  const dir = makeTempDir();
  const c = readRunContext(dir, {});
  assert.equal(c, {
    issue: null,
    step: null,
    testCmd: null,
    skillCommit: null,
    timeoutMs: DEFAULT_TIMEOUT_S * 1000,
    timeoutSource: 'default',
  });
});
context('VERI_* pass through byte for byte; VERI_TIMEOUT wins over the issue file', () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, 'issue-7-timeout'), '120\n');
  const step = 'it\'s $(rm -rf /) `id` "q" \\ %s\t🦀 שלום\nline2';
  const c = readRunContext(dir, {
    VERI_ISSUE: '7',
    VERI_STEP: step,
    VERI_TEST_CMD: "npm test -- --grep 'x'",
    VERI_TIMEOUT: '1.5m',
    VERI_SKILL_COMMIT: 'abc',
  });
  assert.is(c.issue, 7);
  assert.is(c.step, step);
  assert.is(c.testCmd, "npm test -- --grep 'x'");
  assert.is(c.timeoutMs, 90_000);
  assert.is(c.timeoutSource, 'VERI_TIMEOUT');
  assert.is(c.skillCommit, 'abc');
});
context('the issue timeout file, then the pinned skill commit file', () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, 'issue-7-timeout'), '120\n');
  writeFileSync(join(dir, 'issue-7-skill-commit'), 'deadbeef\n');
  const c = readRunContext(dir, { VERI_ISSUE: '7' });
  assert.is(c.timeoutMs, 120_000);
  assert.is(c.timeoutSource, join(dir, 'issue-7-timeout'));
  assert.is(c.skillCommit, 'deadbeef');
  assert.is(readRunContext(dir, { VERI_ISSUE: '7', VERI_NEW_SKILL: '1' }).skillCommit, null);
  assert.is(readRunContext(dir, { VERI_ISSUE: '7', VERI_SKILL_COMMIT: '' }).skillCommit, 'deadbeef');
});
context('bad values name the variable or file and the value', () => {
  const dir = makeTempDir();
  assert.throws(() => readRunContext(dir, { VERI_TIMEOUT: '-5' }), /VERI_TIMEOUT.*"-5"/);
  assert.throws(() => readRunContext(dir, { VERI_ISSUE: 'seven' }), /VERI_ISSUE.*"seven"/);
  writeFileSync(join(dir, 'issue-3-timeout'), 'soon');
  assert.throws(
    () => readRunContext(dir, { VERI_ISSUE: '3' }),
    (e: Error) => e.message.includes('issue-3-timeout') && e.message.includes('"soon"'),
  );
  mkdirSync(join(dir, 'issue-4-timeout'));
  assert.throws(() => readRunContext(dir, { VERI_ISSUE: '4' }), /EISDIR/);
});
context("one reader of the time limit: readRunContext's is readTimeLimit's, whatever the duration's form", () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, 'issue-7-timeout'), '2m\n');
  for (const env of [{ VERI_TIMEOUT: '2m' }, { VERI_TIMEOUT: '90' }, { VERI_TIMEOUT: '0' }, { VERI_TIMEOUT: '' }, {}]) {
    for (const issue of [7, null]) {
      const limit = readTimeLimit(dir, issue, env);
      const run = readRunContext(dir, issue === null ? env : { ...env, VERI_ISSUE: String(issue) });
      assert.equal({ ms: run.timeoutMs, source: run.timeoutSource }, limit, JSON.stringify({ env, issue }));
    }
  }
  // `2m` is two minutes wherever it is read (the slice's proofs once took Number('2m'), NaN, and fell back to 900 s).
  assert.is(readTimeLimit(dir, null, { VERI_TIMEOUT: '2m' }).ms, 120_000);
  assert.equal(readTimeLimit(dir, 7, {}), { ms: 120_000, source: join(dir, 'issue-7-timeout') });
  assert.equal(readTimeLimit(dir, 8, {}), { ms: DEFAULT_TIMEOUT_S * 1000, source: 'default' });
  assert.throws(() => readTimeLimit(dir, null, { VERI_TIMEOUT: 'soon' }), /VERI_TIMEOUT.*"soon"/);
});
context(
  'envIssue and readEventContextAnyway: a bad VERI_ISSUE is an error, except for a record written after the command acted',
  () => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'issue-7-skill-commit'), 'deadbeef\n');
    assert.is(envIssue({}), null);
    assert.is(envIssue({ VERI_ISSUE: '' }), null);
    assert.is(envIssue({ VERI_ISSUE: '7' }), 7);
    assert.throws(
      () => envIssue({ VERI_ISSUE: 'seven' }),
      (e: Error) => e instanceof UsageError && /VERI_ISSUE.*"seven"/.test(e.message),
    );
    const step = 'it\'s $(x) `y` "z" 🦀\nline2';
    assert.equal(
      readEventContextAnyway(dir, { VERI_ISSUE: '7', VERI_STEP: step, VERI_TIMEOUT: 'soon' }),
      { issue: 7, step, skillCommit: 'deadbeef' },
      'a bad timeout is not read',
    );
    assert.equal(readEventContextAnyway(dir, { VERI_ISSUE: 'seven', VERI_STEP: step, VERI_SKILL_COMMIT: 'abc' }), {
      issue: null,
      step,
      skillCommit: 'abc',
    });
    assert.equal(readEventContextAnyway(dir, { VERI_ISSUE: 'seven', VERI_SKILL_COMMIT: '' }), {
      issue: null,
      step: null,
      skillCommit: null,
    });
  },
);
context('readDurationVar and checkOneOf', () => {
  assert.is(readDurationVar({}, 'VERI_KILL_AFTER', 5000), 5000);
  assert.is(readDurationVar({ VERI_KILL_AFTER: '' }, 'VERI_KILL_AFTER', 5000), 5000);
  assert.is(readDurationVar({ VERI_KILL_AFTER: '2' }, 'VERI_KILL_AFTER', 5000), 2000);
  assert.is(checkOneOf('PHASE', 'red', ['red', 'green']), 'red');
  assert.throws(
    () => checkOneOf('PHASE', 'blue', ['red', 'green']),
    (e: Error) => e instanceof UsageError && /PHASE.*red, green.*"blue"/.test(e.message),
  );
});
context.run();

// ---
const stop = suite('stop requests');
stop.after(cleanupTempDirs);
stop('none, each mode, unreadable content, unreadable file; request and clear', () => {
  const dir = join(makeTempDir(), 'nested', '.tdd');
  const file = join(dir, 'stop');
  assert.equal(readStopRequest(file), { kind: 'none' });
  for (const mode of ['at-ledger', 'at-leaf', 'now'] as const) {
    assert.is(requestStop(file, mode), mode);
    assert.equal(readStopRequest(file), { kind: 'requested', mode });
  }
  writeFileSync(file, ' now \n');
  assert.equal(readStopRequest(file), { kind: 'requested', mode: 'now' });
  writeFileSync(file, 'please stop');
  const garbled = readStopRequest(file);
  assert.is(garbled.kind, 'unreadable');
  assert.match((garbled as { reason: string }).reason, 'please stop');
  clearStop(file);
  assert.not.ok(existsSync(file));
  clearStop(file);
  mkdirSync(file);
  assert.is(readStopRequest(file).kind, 'unreadable');
  assert.throws(() => requestStop(join(dir, 'stop2'), 'later'), /at-ledger, at-leaf, now.*"later"/);
});
stop(
  'a file without read permission is unreadable (skipped only where root bypasses permissions is impossible: checked)',
  () => {
    const dir = makeTempDir();
    const file = join(dir, 'stop');
    writeFileSync(file, 'now');
    chmodSync(file, 0o000);
    const result = readStopRequest(file);
    // root reads through mode 000, so both outcomes are checked, each exactly.
    if (process.getuid?.() === 0) assert.equal(result, { kind: 'requested', mode: 'now' });
    else assert.is(result.kind, 'unreadable');
  },
);
stop.run();

// ---
const eventContext = suite('readEventContext');
eventContext.after(cleanupTempDirs);
eventContext('reads issue, step and skill commit, and never the timeout', async () => {
  const { readEventContext } = await import('../src/index.js');
  const dir = makeTempDir();
  writeFileSync(join(dir, 'issue-2-skill-commit'), 'pinned\n');
  assert.equal(readEventContext(dir, { VERI_ISSUE: '2', VERI_STEP: 's', VERI_TIMEOUT: 'garbage' }), {
    issue: 2,
    step: 's',
    skillCommit: 'pinned',
  });
  assert.equal(readEventContext(dir, {}), { issue: null, step: null, skillCommit: null });
});
eventContext.run();
