import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir, repoRoot, runCommand } from '@leap/test-utils';
import { parseLedger } from '@leap/core/ledger';
import { readEvents } from '@leap/core';

test.after(cleanupTempDirs);

// The README's main job: `leap demo`, the umbrella bin as `npx leap` runs it after `npm ci && npm run build`.
const LEAP = join(repoRoot, 'packages', 'cli', 'dist', 'bin', 'leap.cjs');

test('leap demo drives issue 1 of a fresh sample project end to end through the conductor', async () => {
  const dir = join(makeTempDir('leap-demo-test-'), 'slug-demo');
  // Nothing of the caller's environment steers the demo: no VERI_* variable, no git identity of its own.
  const env = { PATH: process.env.PATH ?? '', HOME: makeTempDir('leap-demo-home-'), GIT_CONFIG_NOSYSTEM: '1' };
  const run = await runCommand(process.execPath, [LEAP, 'demo', '--dir', dir], { env, cwd: makeTempDir() });
  assert.is(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /verdict green: REJECT: .+\n.*develop-green-2 \(revision 1\)/);
  assert.match(run.stdout, /\nSummary: 3 of 3 steps done, 10 commits, 10 verdicts, \d+ leaves, in \d+\.\d s\n/);
  assert.match(run.stdout, /\ndone: every step and criterion of issue 1 is ticked \(exit 0\)\n$/);

  const ledger = parseLedger(readFileSync(join(dir, '.tdd', 'issue-1.md'), 'utf8'), 'issue-1.md');
  assert.equal(
    ledger.steps.map((s) => s.state),
    ['done', 'done', 'done'],
  );
  assert.is(ledger.steps[1]!.title, 'Drop characters like \' " $ ` that are not letters or digits');
  assert.is(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'leap/issue-1');
  assert.is(
    git(dir, 'status', '--porcelain', '--untracked-files=all'),
    '',
    'the ledger agrees with HEAD, nothing left over',
  );
  const log = git(dir, 'log', '--reverse', '--format=%s', 'main..HEAD').trim().split('\n');
  assert.equal(log, [
    'plan: issue 1',
    ...ledger.steps.flatMap((s) => [`red: ${s.title}`, `green: ${s.title}`, `refactor: ${s.title}`]),
  ]);
  assert.match(
    git(dir, 'show', `HEAD~4`, '--', '.tdd/issue-1.md'),
    /\+- \[x\] Drop characters.*refactor-pending/,
    'the tick is in the green commit',
  );
  const issue = readFileSync(join(dir, '.tdd', 'issues', '1.md'), 'utf8');
  assert.is(issue.match(/^- \[x\]/gm)?.length, 3, 'the three criteria ticked');
  assert.match(
    readFileSync(join(dir, '.tdd', 'issues', '1.pr.md'), 'utf8'),
    /State: draft/,
    'the local draft pull request',
  );
  assert.is(spawnSync('npm', ['test', '--silent'], { cwd: dir, env }).status, 0, "the demo project's tests pass");

  const events = readEvents(join(dir, '.tdd', 'events.jsonl')).map(
    (r) => r.event as { event: string; phase?: string; verdict?: string; status?: string },
  );
  const verdicts = events.filter((e) => e.event === 'verdict').map((e) => `${e.phase}:${e.verdict}`);
  assert.equal(verdicts, [
    'red:PASS',
    'green:PASS',
    'refactor:PASS',
    'red:PASS',
    'green:REJECT',
    'green:PASS',
    'refactor:PASS',
    'red:PASS',
    'green:PASS',
    'refactor:PASS',
  ]);
  const exits = events.filter((e) => e.event === 'exit');
  assert.ok(exits.length >= 20 && exits.every((e) => e.status === 'exited'), 'every leaf exited by itself');
  assert.equal(events.filter((e) => e.event === 'launch').length, exits.length, 'every launch has its exit');
  assert.ok(readdirSync(join(dir, '.tdd')).includes('develop-green-2.out'), "the revision leaf's output is kept");
});

test.run();
