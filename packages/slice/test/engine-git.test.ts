// The engine's git (engine/git.ts) on core's runner: the ceiling guard, the caller's GIT_* variables
// dropped, many calls at once in one folder, a failure as core's GitError. One repository for every case.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { GitError } from '@leap/core';
import { cleanupTempDirs, git as testGit, hostileTitles, makeGitRepo, makeTempDir, suite } from '@leap/test-utils';
import { GIT_FAILURE_EXIT, git, isAncestor, mergeCommits, resolveCommit, tryGit } from '../src/engine/git.js';
import { gitStdout } from '../src/reap.js';

const test = suite('engine git');
let repo = '';
test.before(() => {
  repo = makeGitRepo({ files: { 'a.txt': 'a\n' } });
});
test.after(cleanupTempDirs);

test('in a folder of the repository with no .git of its own, git never finds the repository around it', async () => {
  // A ball's worktree whose .git a builder deleted: a folder inside the main repository.
  const worktree = join(repo, 'inner', 'ball');
  mkdirSync(worktree, { recursive: true });
  const error = await git(worktree, ['rev-parse', '--show-toplevel']).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(error, GitError);
  assert.match((error as GitError).stderr, /not a git repository/);
  assert.is(await tryGit(worktree, ['status']), null);
  // Without the guard git would have answered with the repository around it.
  assert.is(testGit(worktree, 'rev-parse', '--show-toplevel').trim(), repo);
});

test("a GIT_DIR or GIT_INDEX_FILE of the caller's does not point the engine's git elsewhere", async () => {
  const other = makeTempDir();
  const saved = { dir: process.env.GIT_DIR, index: process.env.GIT_INDEX_FILE };
  process.env.GIT_DIR = join(other, 'nowhere.git');
  process.env.GIT_INDEX_FILE = join(other, 'index');
  try {
    assert.is((await git(repo, ['rev-parse', '--show-toplevel'])).trim(), repo);
  } finally {
    if (saved.dir === undefined) delete process.env.GIT_DIR;
    else process.env.GIT_DIR = saved.dir;
    if (saved.index === undefined) delete process.env.GIT_INDEX_FILE;
    else process.env.GIT_INDEX_FILE = saved.index;
  }
});

test('sixty calls at once in one folder all answer, and a hostile message is one argument byte for byte', async () => {
  const head = testGit(repo, 'rev-parse', 'HEAD').trim();
  const answers = await Promise.all(Array.from({ length: 60 }, () => git(repo, ['rev-parse', 'HEAD'])));
  assert.equal(new Set(answers), new Set([`${head}\n`]));
  const [title] = hostileTitles(2).slice(1);
  testGit(repo, 'switch', '-q', '-c', 'side');
  writeFileSync(join(repo, 'b.txt'), 'b\n');
  testGit(repo, 'add', 'b.txt');
  testGit(repo, 'commit', '-q', '-m', 'side');
  testGit(repo, 'switch', '-q', 'main');
  const side = await resolveCommit(repo, 'side');
  assert.ok(side !== null && (await isAncestor(repo, head, side)));
  assert.not.ok(await isAncestor(repo, side, head));
  const merged = await mergeCommits(repo, head, side, `merge: ${title}`);
  assert.ok(merged !== null);
  assert.is(testGit(repo, 'log', '-1', '--format=%s', merged), `merge: ${title}\n`);
  assert.is(await resolveCommit(repo, '--no-such'), null);
});

test("a failure names the command, not its data, carries git's words, and exits 1 (the engine's and reap's)", async () => {
  const error = await git(repo, ['cat-file', '-p', 'no-such-object-$(x)']).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(error, GitError);
  assert.match((error as GitError).message, /^git cat-file failed \(exit \d+\) in /);
  assert.equal((error as GitError).args, ['cat-file', '-p', 'no-such-object-$(x)']);
  // A git failure mid-run is no bad input (exit 2: nothing touched): the command ends with 1.
  assert.is((error as GitError).exitCode, 1);
  assert.is(GIT_FAILURE_EXIT, 1);
  const reaped = (() => {
    try {
      return gitStdout(makeTempDir(), ['worktree', 'list']);
    } catch (e) {
      return e;
    }
  })();
  assert.instance(reaped, GitError);
  assert.is((reaped as GitError).exitCode, 1);
});

test.run();
