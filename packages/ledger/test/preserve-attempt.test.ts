// preserve-attempt and attempts: keep a half-done step's work in a ref, restore its files, put it back later.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, hostileTitles } from '@leap/test-utils';
import { applyAttempt, formatAttempts, listAttempts, preserveAttempt } from '../src/attempts.js';
import {
  cleanEnv,
  conflictOn,
  head,
  ledger,
  makeLedgerRepo,
  readTickEvents,
  rejects,
  script,
  stage,
  type StepSpec,
} from './helpers.js';

const TITLE = hostileTitles(3, 21)[2] as string;
const STEPS: StepSpec[] = [
  ['done', 'Step one'],
  ['todo', TITLE],
];

// A repository with a finished step committed, then a half-done one: every kind of uncommitted change.
function halfDone(): { dir: string; finished: string } {
  const { dir } = makeLedgerRepo(STEPS, {
    files: { '.gitignore': 'build/\n*.log\n', 'a.txt': 'a\n', 'b.txt': 'b\n', 'e.txt': 'e\n', 'keep.txt': 'keep\n' },
  });
  stage(dir, 'one.txt', 'step one\n');
  git(dir, 'commit', '-q', '-m', 'step one');
  const finished = head(dir);
  writeFileSync(join(dir, 'a.txt'), 'a, half done\n');
  stage(dir, 'b.txt', 'b, staged\n');
  stage(dir, 'c.txt', 'new, staged\n');
  mkdirSync(join(dir, 'dir', 'deep'), { recursive: true });
  writeFileSync(join(dir, 'dir', 'deep', 'd.txt'), 'new, untracked\n');
  rmSync(join(dir, 'e.txt'));
  mkdirSync(join(dir, 'build'));
  writeFileSync(join(dir, 'build', 'out.js'), 'ignored\n');
  writeFileSync(join(dir, 'x.log'), 'ignored\n');
  writeFileSync(join(dir, '.tdd', 'develop-red.out'), 'leaf output\n');
  return { dir, finished };
}

// ---
const preserveSuite = suite('preserveAttempt');
preserveSuite.after.each(cleanupTempDirs);

preserveSuite('keeps every uncommitted change in a ref, then restores exactly those files to HEAD', async () => {
  const { dir, finished } = halfDone();
  const kept = await preserveAttempt({ issue: 7, step: TITLE, cwd: dir, env: cleanEnv() });
  assert.match(kept.ref as string, /^refs\/leap\/attempts\/issue-7\/step-2-[0-9T]+Z$/);
  assert.equal(kept.paths.sort(), ['a.txt', 'b.txt', 'c.txt', 'dir/deep/d.txt', 'e.txt']);
  const commit = kept.commit as string;
  assert.is(git(dir, 'rev-parse', kept.ref as string).trim(), commit);
  assert.is(git(dir, 'rev-parse', `${commit}^`).trim(), finished);
  assert.is(
    git(dir, 'diff', '--name-status', finished, commit),
    'M\ta.txt\nM\tb.txt\nA\tc.txt\nA\tdir/deep/d.txt\nD\te.txt\n',
  );
  assert.is(git(dir, 'show', `${commit}:a.txt`), 'a, half done\n');
  assert.is(git(dir, 'log', '-1', '--format=%B', commit), `leap attempt: issue 7, step 2\n\n${TITLE}\n\n`);
  // Restored: the step's files only.
  assert.is(head(dir), finished);
  // The leaf's output and the event log are the state folder's runtime files: its .gitignore keeps them out of git.
  assert.is(git(dir, 'status', '--porcelain', '--untracked-files=all'), '');
  assert.is(
    git(dir, 'status', '--porcelain', '--ignored', '.tdd'),
    '!! .tdd/.gitignore\n!! .tdd/develop-red.out\n!! .tdd/events.jsonl\n',
  );
  assert.is(readFileSync(join(dir, 'a.txt'), 'utf8'), 'a\n');
  assert.is(readFileSync(join(dir, 'e.txt'), 'utf8'), 'e\n');
  assert.not.ok(existsSync(join(dir, 'c.txt')));
  assert.not.ok(existsSync(join(dir, 'dir')), 'the folders the step made are gone too');
  assert.ok(
    existsSync(join(dir, 'build', 'out.js')) && existsSync(join(dir, 'x.log')),
    'ignored files are never touched',
  );
  assert.is(readFileSync(join(dir, 'one.txt'), 'utf8'), 'step one\n');
  const events = await readTickEvents(dir);
  assert.equal(
    events.map((e) => [e.action, e.title, e.ref, e.commit, e.issue]),
    [['preserve-attempt', TITLE, kept.ref, commit, 7]],
  );

  const listed = await listAttempts({ cwd: dir, env: cleanEnv() });
  assert.equal(
    listed.map((a) => [a.ref, a.commit, a.issue, a.title]),
    [[kept.ref, commit, 7, TITLE]],
  );
  assert.equal(await listAttempts({ issue: 8, cwd: dir, env: cleanEnv() }), []);
  assert.is(formatAttempts(listed, false), `${kept.ref}\t${listed[0]?.date}\t${TITLE}\n`);

  const applied = await applyAttempt((kept.ref as string).slice('refs/leap/attempts/'.length), {
    cwd: dir,
    env: cleanEnv(),
  });
  assert.is(applied.ref, kept.ref);
  assert.is(readFileSync(join(dir, 'a.txt'), 'utf8'), 'a, half done\n');
  assert.is(readFileSync(join(dir, 'b.txt'), 'utf8'), 'b, staged\n');
  assert.is(readFileSync(join(dir, 'dir', 'deep', 'd.txt'), 'utf8'), 'new, untracked\n');
  assert.not.ok(existsSync(join(dir, 'e.txt')));
  assert.equal(
    (await readTickEvents(dir)).map((e) => e.action),
    ['preserve-attempt', 'restore'],
  );
  const twice = await rejects(
    () => applyAttempt(kept.ref as string, { cwd: dir, env: cleanEnv() }),
    /does not apply to the working tree as it is now/,
  );
  assert.is(twice.exitCode, 4);
  await rejects(
    () => applyAttempt('issue-7/nope', { cwd: dir, env: cleanEnv() }),
    /no kept attempt "refs\/leap\/attempts\/issue-7\/nope"/,
  );
  await rejects(
    () => applyAttempt('refs/heads/main', { cwd: dir, env: cleanEnv() }),
    /Expected an attempt under refs\/leap\/attempts\//,
  );
});

preserveSuite(
  'nothing uncommitted keeps nothing; a done or unknown step is refused; unmerged paths are refused',
  async () => {
    const { dir } = makeLedgerRepo(STEPS, { files: { 'f.txt': 'base\n' } });
    assert.equal(await preserveAttempt({ issue: 7, step: TITLE, cwd: dir, env: cleanEnv() }), {
      ref: null,
      commit: null,
      paths: [],
    });
    assert.is(
      (
        await rejects(
          () => preserveAttempt({ issue: 7, step: 'Step one', cwd: dir, env: cleanEnv() }),
          /issue-7\.md:7: step "Step one" is done/,
        )
      ).exitCode,
      2,
    );
    await rejects(
      () => preserveAttempt({ issue: 7, step: 'Step 1', cwd: dir, env: cleanEnv() }),
      /no step titled "Step 1"/,
    );
    conflictOn(dir, 'f.txt');
    assert.is(
      (
        await rejects(
          () => preserveAttempt({ issue: 7, step: TITLE, cwd: dir, env: cleanEnv() }),
          /"f\.txt" is unmerged/,
        )
      ).exitCode,
      4,
    );
    assert.equal(await listAttempts({ cwd: dir, env: cleanEnv() }), []);
  },
);

preserveSuite.run();

// ---
const binSuite = suite('preserve-attempt and attempts (bin and preserve-attempt.sh)');
binSuite.after.each(cleanupTempDirs);

binSuite('the script keeps the attempt and prints its ref; attempts list and apply through the bin', async () => {
  const { dir } = halfDone();
  const kept = await script('preserve-attempt.sh', dir, ['7', '--step', TITLE]);
  assert.is(kept.code, 0, kept.stderr);
  const ref = kept.stdout.trim();
  assert.match(ref, /^refs\/leap\/attempts\/issue-7\//);
  const list = await ledger(dir, ['attempts', 'list', '--issue', '7', '--json']);
  assert.is(list.code, 0);
  assert.equal(JSON.parse(list.stdout) as { title: string; ref: string }, {
    ...(JSON.parse(list.stdout) as object),
    ref,
    title: TITLE,
  });
  const none = await ledger(dir, ['attempts', 'list', '--issue', '9']);
  assert.equal([none.code, none.stdout], [1, '']);
  const applied = await ledger(dir, ['attempts', 'apply', ref]);
  assert.equal([applied.code, applied.stdout], [0, '']);
  assert.match(applied.stderr, /^leap-ledger: applied refs\/leap\/attempts\/issue-7\//);
  assert.is(readFileSync(join(dir, 'a.txt'), 'utf8'), 'a, half done\n');
  const again = await ledger(dir, ['preserve-attempt', '--issue', '7', '--step', TITLE, '--json']);
  const second = JSON.parse(again.stdout) as { ref: string; paths: string[] };
  assert.ok(second.ref !== ref && second.paths.includes('a.txt'));
  const nothing = await ledger(dir, ['preserve-attempt', '--issue', '7', '--step', TITLE]);
  assert.equal(
    [nothing.code, nothing.stdout, nothing.stderr],
    [0, '', 'leap-ledger: nothing uncommitted: no attempt to keep\n'],
  );
  const bad = await ledger(dir, ['attempts', 'drop', ref]);
  assert.equal([bad.code, bad.stdout], [2, '']);
  assert.match(bad.stderr, /expected "attempts list" or "attempts apply REF"/);
});

binSuite.run();
