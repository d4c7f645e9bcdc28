// recoverLedger on the states a crash and a person can leave: HEAD moved on past the tick, HEAD moved
// elsewhere, a live lock holder, a half-written journal, a broken journal.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git } from '@leap/test-utils';
import { tryLock } from '@leap/core';
import { hasPendingTransaction, journalPath } from '../src/input.js';
import { recoverLedger } from '../src/transaction.js';

const journalTempPath = (stateDir: string) => `${journalPath(stateDir)}.tmp`;
import {
  fileAt,
  head,
  ledger,
  leftovers,
  makeLedgerRepo,
  readTickEvents,
  snapshot,
  stage,
  type StepSpec,
} from './helpers.js';

const STEPS: StepSpec[] = [
  ['todo', 'First'],
  ['todo', 'Second'],
];
const LEDGER = '.tdd/issue-7.md';

// A tick of "First" killed at the named point.
async function killedTick(
  point: string,
): Promise<{ dir: string; stateDir: string; oldHead: string; oldLedger: string }> {
  const { dir } = makeLedgerRepo(STEPS);
  stage(dir, 'work.txt', 'work\n');
  const oldHead = head(dir);
  const oldLedger = readFileSync(join(dir, LEDGER), 'utf8');
  const run = await ledger(dir, ['tick', '7', '--step', 'First'], { env: { LEAP_LEDGER_KILL_AT: point } });
  assert.is(run.signal, 'SIGKILL', `killed at ${point}`);
  return { dir, stateDir: join(dir, '.tdd'), oldHead, oldLedger };
}

// ---
const recoverSuite = suite('recoverLedger');
recoverSuite.after.each(cleanupTempDirs);

recoverSuite('a tick killed once its commit landed: finished, the ledger and the index agree with HEAD', async () => {
  const { dir, stateDir, oldHead } = await killedTick('committed');
  const ticked = head(dir);
  assert.is(git(dir, 'rev-parse', 'HEAD^').trim(), oldHead);
  const report = await recoverLedger(stateDir, { env: { ...process.env, VERI_ISSUE: '' } });
  assert.equal([report?.outcome, report?.title, report?.issue, report?.head], ['finished', 'First', 7, ticked]);
  assert.is(git(dir, 'status', '--porcelain', '--untracked-files=no'), '');
  assert.is(readFileSync(join(dir, LEDGER), 'utf8'), fileAt(dir, 'HEAD', LEDGER));
  assert.equal(leftovers(dir), []);
  const events = await readTickEvents(dir);
  assert.equal(
    events.map((e) => [e.action, e.commit]),
    [
      ['tick', ticked],
      ['restore', ticked],
    ],
  );
});

recoverSuite('HEAD moved on past the landed tick: finished without touching the index or the ledger', async () => {
  const { dir, stateDir } = await killedTick('committed');
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'later');
  const before = snapshot(dir);
  const report = await recoverLedger(stateDir);
  assert.is(report?.outcome, 'finished');
  assert.match(report?.message ?? '', /HEAD has moved on since \(to [0-9a-f]{40}\), so only its files were removed/);
  assert.equal(snapshot(dir), before);
  assert.equal(leftovers(dir), []);
});

recoverSuite('HEAD moved elsewhere before the tick landed: undone, the ledger back to its old bytes', async () => {
  const { dir, stateDir, oldLedger } = await killedTick('ledger written');
  git(dir, 'commit', '-q', '-m', 'someone else');
  const report = await recoverLedger(stateDir);
  assert.is(report?.outcome, 'undone');
  assert.is(readFileSync(join(dir, LEDGER), 'utf8'), oldLedger);
  assert.equal(leftovers(dir), []);
  assert.is(git(dir, 'log', '-1', '--format=%s'), 'someone else\n');
});

recoverSuite(
  'nothing to do without a journal; a live lock holder is left alone; a half-written journal is dropped',
  async () => {
    const { dir, stateDir } = await killedTick('journal written');
    const before = readFileSync(journalPath(stateDir), 'utf8');
    const lock = tryLock(join(stateDir, 'ledger.lock'));
    assert.ok(lock !== null);
    assert.is(await recoverLedger(stateDir), null, 'a live holder (this process) owns the transaction');
    assert.is(readFileSync(journalPath(stateDir), 'utf8'), before);
    lock?.release();
    assert.is((await recoverLedger(stateDir))?.outcome, 'undone');
    assert.is(await recoverLedger(stateDir), null);
    writeFileSync(journalTempPath(stateDir), '{"half": ');
    assert.ok(hasPendingTransaction(stateDir));
    assert.is(await recoverLedger(stateDir), null);
    assert.not.ok(existsSync(journalTempPath(stateDir)));
    assert.equal(snapshot(dir).staged, 'A\twork.txt\n');
  },
);

recoverSuite('a broken journal stops every ledger command with exit 2, naming it', async () => {
  const { dir, stateDir } = await killedTick('journal written');
  writeFileSync(journalPath(stateDir), 'not json');
  const query = await ledger(dir, ['current', '--issue', '7']);
  assert.equal([query.code, query.stdout], [2, '']);
  assert.match(query.stderr, /ledger-transaction\.json: expected the JSON journal of an interrupted tick/);
  const tick = await ledger(dir, ['tick', '7', '--step', 'First']);
  assert.is(tick.code, 2);
});

recoverSuite.run();
