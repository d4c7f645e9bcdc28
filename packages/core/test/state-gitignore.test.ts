import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { STATE_GITIGNORE, appendEvent, createEvent, ensureStateDir, requestStop, statePaths } from '../src/index.js';

const context = { issue: 1, step: null, skillCommit: null };
const status = (repo: string) => git(repo, 'status', '--porcelain', '--untracked-files=all');

function write(file: string, content = 'x\n'): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}

// ---
const ensure = suite('ensureStateDir');
ensure.after(cleanupTempDirs);

ensure('creates the folder (and its parents) with its .gitignore, and returns it', () => {
  const dir = join(makeTempDir(), 'a', '.tdd');
  assert.is(ensureStateDir(dir), dir);
  assert.is(readFileSync(join(dir, '.gitignore'), 'utf8'), STATE_GITIGNORE);
});

ensure('a folder a person made, without a .gitignore, gets one', () => {
  const repo = makeGitRepo();
  write(join(repo, '.tdd', 'issues', '3.md'), '# Issue 3\n');
  ensureStateDir(join(repo, '.tdd'));
  assert.is(readFileSync(join(repo, '.tdd', '.gitignore'), 'utf8'), STATE_GITIGNORE);
  assert.is(status(repo), '?? .tdd/issues/3.md\n', 'the issue body stays visible to git');
});

ensure("an existing .gitignore is the user's: kept byte for byte", () => {
  const dir = join(makeTempDir(), '.tdd');
  write(join(dir, '.gitignore'), '# mine\nevents.jsonl\n');
  ensureStateDir(dir);
  assert.is(readFileSync(join(dir, '.gitignore'), 'utf8'), '# mine\nevents.jsonl\n');
});

ensure("a state folder that is a repository's top (VERI_STATE_DIR=.) gets no .gitignore", () => {
  const repo = makeGitRepo();
  ensureStateDir(repo);
  assert.not.ok(existsSync(join(repo, '.gitignore')));
  assert.is(status(repo), '');
});

ensure('a folder removed and made again in the same process gets its .gitignore again', () => {
  const dir = join(makeTempDir(), '.tdd');
  ensureStateDir(dir);
  rmSync(dir, { recursive: true });
  ensureStateDir(dir);
  assert.is(readFileSync(join(dir, '.gitignore'), 'utf8'), STATE_GITIGNORE);
});

ensure(
  "a temp .gitignore left by a writer killed before its rename goes once the writer is dead; a live writer's stays",
  () => {
    const dir = join(makeTempDir(), '.tdd');
    mkdirSync(dir);
    const dead = spawnSync('true').pid; // reaped: no process has that pid now
    const left = `..gitignore.${dead}.0badf00d.tmp`;
    const live = `..gitignore.${process.pid}.0ddba11.tmp`;
    writeFileSync(join(dir, left), '.g');
    writeFileSync(join(dir, live), '.g');
    writeFileSync(join(dir, '..gitignore.notapid.tmp'), 'not a temp of ours');
    ensureStateDir(dir);
    assert.equal(readdirSync(dir).sort(), ['..gitignore.notapid.tmp', live, '.gitignore'].sort());
    assert.is(readFileSync(join(dir, '.gitignore'), 'utf8'), STATE_GITIGNORE);
  },
);

// ---
const ignored = suite('STATE_GITIGNORE in a real repository');
ignored.after(cleanupTempDirs);

ignored('every runtime file is ignored, the .gitignore too; ledgers and issue bodies stay tracked', () => {
  const repo = makeGitRepo();
  const paths = statePaths(ensureStateDir(join(repo, '.tdd')));
  const runtime = [
    paths.pid('develop-red'),
    paths.exit('develop-red'),
    paths.out('develop-red'),
    paths.err('develop-red'),
    paths.sock('develop-red'),
    paths.pid("it's a $(leaf)"),
    paths.events,
    paths.stop,
    paths.timeout(3),
    paths.skillCommit(3),
    paths.thread(3),
    join(paths.issuesDir, '3.pr.md'),
    join(paths.dir, 'pull-requests', 'leap_issue-3.md'),
    join(paths.dir, 'ledger.lock'),
    join(paths.dir, 'ledger-transaction.json'),
    join(paths.dir, 'ledger-transaction.json.tmp'),
    join(paths.dir, '.issue-3.md.leap-backup'),
    join(paths.dir, '.issue-3.md.leap-new'),
    join(paths.dir, '.develop-red.exit.123.abcd.tmp'),
    join(paths.dir, 'issue-3-run.json'),
    join(paths.dir, 'anything-a-later-command-adds'),
  ];
  for (const file of runtime) write(file);
  write(paths.ledger(3), '# Issue 3\n\n## Steps\n\n- [ ] one\n');
  write(paths.issue(3), '# Issue 3\n\n## Acceptance criteria\n\n- [ ] one\n');
  write(paths.issue(12), '# Issue 12\n');
  assert.is(status(repo), '?? .tdd/issue-3.md\n?? .tdd/issues/12.md\n?? .tdd/issues/3.md\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'ledger and issues');
  assert.is(status(repo), '');
  assert.equal(git(repo, 'ls-files', '.tdd').trim().split('\n'), [
    '.tdd/issue-3.md',
    '.tdd/issues/12.md',
    '.tdd/issues/3.md',
  ]);
});

// ---
const writers = suite('the commands that create the state folder');
writers.after(cleanupTempDirs);

writers('appending an event creates the state folder with its .gitignore; git status stays clean', () => {
  const repo = makeGitRepo();
  appendEvent(
    statePaths(join(repo, '.tdd')).events,
    createEvent('mark', { name: 'step-start', anchor: null }, context),
  );
  assert.is(readFileSync(join(repo, '.tdd', '.gitignore'), 'utf8'), STATE_GITIGNORE);
  assert.is(status(repo), '');
});

writers('a stop request creates the state folder with its .gitignore; git status stays clean', () => {
  const repo = makeGitRepo();
  requestStop(statePaths(join(repo, 'state')).stop, 'at-leaf');
  assert.is(readFileSync(join(repo, 'state', '.gitignore'), 'utf8'), STATE_GITIGNORE);
  assert.is(status(repo), '');
});

ensure.run();
ignored.run();
writers.run();
