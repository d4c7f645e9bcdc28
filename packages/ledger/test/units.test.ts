// Small parts: titles in messages, the journal, the transaction's process finder, git.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir, waitFor } from '@leap/test-utils';
import { showTitle } from '@leap/core/ledger';
import { journalPath } from '../src/input.js';
import { git, readJournal, transactionProcesses, waitForTransaction } from '../src/transaction.js';

// ---
const quoteSuite = suite('showTitle');

quoteSuite('quotes short titles whole and cuts long ones, saying how long they were', () => {
  assert.is(showTitle('a "b"'), '"a \\"b\\""');
  assert.is(showTitle('x'.repeat(2000)), `"${'x'.repeat(80)}"… (2000 characters)`);
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
    (e: Error & { exitCode?: number }) =>
      e.exitCode === 2 &&
      e.message.startsWith(
        `${journalPath(dir)}: expected the JSON journal of an interrupted tick, found unreadable JSON`,
      ),
  );
  writeFileSync(journalPath(dir), '{"token": "t"}');
  assert.throws(
    () => readJournal(dir),
    /expected the journal of an interrupted tick with a string "ledger", found undefined/,
  );
  mkdirSync(join(dir, 'sub'));
  writeFileSync(journalPath(join(dir, 'sub')), '');
  assert.throws(() => readJournal(join(dir, 'sub')), /unreadable JSON/);
});

journalSuite.run();

// ---
const orphanSuite = suite('transactionProcesses');

orphanSuite(
  'finds live processes by the token in their environment, and stops finding them once they exit',
  async () => {
    const token = `test${process.pid}${Date.now()}`;
    const child = spawn('sleep', ['30'], { env: { ...process.env, LEAP_LEDGER_TXN: token }, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    assert.ok(await waitFor(() => transactionProcesses(token).includes(child.pid as number)));
    assert.equal(transactionProcesses(`${token}x`), []);
    assert.equal(await waitForTransaction(token, 50), [child.pid]);
    child.kill('SIGKILL');
    await exited;
    assert.equal(await waitForTransaction(token, 5000), []);
  },
);

orphanSuite.run();

// ---
const gitSuite = suite('git');

gitSuite(
  "argv in, stdout and stderr out; a failure names the command and git's words; a missing git is an internal error",
  () => {
    const cwd = process.cwd();
    assert.match(git(['--version'], { cwd }).stdout, /^git version /);
    const failed = git(['rev-parse', '--verify', '-q', 'no-such-ref-$(x)'], { cwd, allowFailure: true });
    assert.is(failed.code, 1);
    try {
      git(['cat-file', '-t', '0000000000000000000000000000000000000001'], { cwd });
      assert.unreachable();
    } catch (error) {
      assert.is((error as { exitCode?: number }).exitCode, 5);
      assert.match((error as Error).message, /^git cat-file failed \(exit 128\) in .*: fatal: /);
    }
    try {
      git(['--version'], { cwd, env: { PATH: '/nonexistent' } });
      assert.unreachable();
    } catch (error) {
      assert.is((error as { exitCode?: number }).exitCode, 5);
      assert.match((error as Error).message, /^git could not run in .*: .*ENOENT/);
    }
  },
);

gitSuite.run();
