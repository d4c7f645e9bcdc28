import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir, repoRoot, runCommand } from '@leap/test-utils';
import { parseLedger } from '@leap/core/ledger';
import { readEvents } from '@leap/core/schemas';

test.after(cleanupTempDirs);

test('npm run demo drives issue 1 end to end through the drop-in scripts', async () => {
  const dir = join(makeTempDir('leap-demo-test-'), 'repo');
  const run = await runCommand(process.execPath, [join(repoRoot, 'demo', 'run.mjs'), '--dir', dir]);
  assert.is(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, 'revision: the green was rejected; developer attempt 2');
  assert.match(run.stdout, /done: every step of issue 1 is ticked/);

  const ledger = parseLedger(readFileSync(join(dir, '.tdd', 'issue-1.md'), 'utf8'), 'issue-1.md');
  assert.equal(ledger.steps.map((s) => s.state), ['done', 'done']);
  assert.is(ledger.steps[1]!.title, "Drop characters like ' \" $ ` that are not letters or digits");
  assert.equal(git(dir, 'status', '--porcelain', '--untracked-files=no'), '', 'the ledger agrees with HEAD');
  const log = git(dir, 'log', '--format=%s').trim().split('\n');
  assert.equal(log.slice(0, 3), [`refactor: ${ledger.steps[1]!.title}`, `green: ${ledger.steps[1]!.title}`, 'red: drop punctuation']);
  assert.match(git(dir, 'show', 'HEAD~1', '--', '.tdd/issue-1.md'), /\+- \[x\] Drop characters.*refactor-pending/, 'the tick is in the green commit');
  const issue = readFileSync(join(dir, '.tdd', 'issues', '1.md'), 'utf8');
  assert.is(issue.match(/- \[x\]/g)?.length, 2, 'both criteria ticked');

  const events = readEvents(join(dir, '.tdd', 'events.jsonl')).map((r) => r.event);
  const verdicts = events.filter((e) => e.event === 'verdict').map((e) => (e as { phase: string; verdict: string }).phase + ':' + (e as { verdict: string }).verdict);
  assert.equal(verdicts, ['red:PASS', 'green:PASS', 'refactor:PASS', 'red:PASS', 'green:REJECT', 'green:PASS', 'refactor:PASS']);
  const exits = events.filter((e) => e.event === 'exit');
  assert.ok(exits.length >= 20 && exits.every((e) => (e as { status: string }).status === 'exited'));
  assert.equal(events.filter((e) => e.event === 'launch').length, exits.length, 'every launch has its exit');
});

test.run();
