// Small modules: commit messages, the journal, the transaction's process finder, titles in messages.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir, waitFor } from '@leap/test-utils';
import { cleanupMessage, messageSubject } from '../src/git/commit-message.js';
import { quote } from '../src/quote-title.js';
import { journalPath, readJournal } from '../src/transaction/journal.js';
import { findTransactionProcesses, waitForTransactionProcesses } from '../src/transaction/orphans.js';

// ---
const messageSuite = suite('cleanupMessage and messageSubject');

messageSuite('cleans like git commit -m: trailing blanks, blank runs, leading and trailing blank lines', () => {
  assert.is(cleanupMessage('\n\n  subject \t\n\n\n\nbody\r\n\n'), '  subject\n\nbody\n');
  assert.is(cleanupMessage(' \n\t\n'), '');
  assert.is(cleanupMessage('x'), 'x\n');
  assert.is(messageSubject('one\ntwo\n'), 'one');
  assert.is(messageSubject('only'), 'only');
});

messageSuite.run();

// ---
const quoteSuite = suite('quote');

quoteSuite('quotes short titles whole and cuts long ones, saying how long they were', () => {
  assert.is(quote('a "b"'), '"a \\"b\\""');
  assert.is(quote('x'.repeat(2000)), `"${'x'.repeat(77)}"… (2000 characters)`);
});

quoteSuite.run();

// ---
const journalSuite = suite('readJournal');
journalSuite.after.each(cleanupTempDirs);

journalSuite('no journal is null; unreadable or incomplete journals are errors naming the file', () => {
  const dir = makeTempDir();
  assert.is(readJournal(dir), null);
  writeFileSync(journalPath(dir), '{ torn');
  assert.throws(
    () => readJournal(dir),
    (e: Error & { exitCode?: number }) => e.exitCode === 2 && e.message.startsWith(`${journalPath(dir)}: expected the JSON journal of an interrupted tick, found unreadable JSON`),
  );
  writeFileSync(journalPath(dir), '{"token": "t"}');
  assert.throws(() => readJournal(dir), /expected the journal of an interrupted tick with a string "ledger", found undefined/);
  mkdirSync(join(dir, 'sub'));
  writeFileSync(journalPath(join(dir, 'sub')), '');
  assert.throws(() => readJournal(join(dir, 'sub')), /unreadable JSON/);
});

journalSuite.run();

// ---
const orphanSuite = suite('findTransactionProcesses');

orphanSuite('finds live processes by the token in their environment, and stops finding them once they exit', async () => {
  const token = `test${process.pid}${Date.now()}`;
  const child = spawn('sleep', ['30'], { env: { ...process.env, LEAP_LEDGER_TXN: token }, stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  assert.ok(await waitFor(() => findTransactionProcesses(token).includes(child.pid as number)));
  assert.equal(findTransactionProcesses(`${token}x`), []);
  assert.equal(await waitForTransactionProcesses(token, 50), [child.pid]);
  child.kill('SIGKILL');
  await exited;
  assert.equal(await waitForTransactionProcesses(token, 5000), []);
});

orphanSuite.run();

// ---
const gitSuite = suite('runGit');

gitSuite("argv in, stdout and stderr out; a failure names the command and git's words; a missing git is an internal error", async () => {
  const { runGit } = await import('../src/git/run-git.js');
  const cwd = process.cwd();
  assert.match((await runGit(['--version'], { cwd })).stdout, /^git version /);
  const failed = await runGit(['rev-parse', '--verify', '-q', 'no-such-ref-$(x)'], { cwd, allowFailure: true });
  assert.is(failed.code, 1);
  try {
    await runGit(['cat-file', '-t', '0000000000000000000000000000000000000001'], { cwd });
    assert.unreachable();
  } catch (error) {
    assert.is((error as { exitCode?: number }).exitCode, 5);
    assert.match((error as Error).message, /^git cat-file failed \(exit 128\) in .*: fatal: /);
  }
  try {
    await runGit(['--version'], { cwd, env: { PATH: '/nonexistent' } });
    assert.unreachable();
  } catch (error) {
    assert.is((error as { exitCode?: number }).exitCode, 5);
    assert.match((error as Error).message, /^git could not run in .*: .*ENOENT/);
  }
});

gitSuite.run();
