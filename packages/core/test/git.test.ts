import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, hostileTitles, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { GitError, InternalError, runGit, runGitSync, splitNul } from '../src/index.js';
import { gitCommandName, gitEnv, gitText, gitTextSync } from '../src/git.js';

const git = suite('core git runner');
git.after(cleanupTempDirs);

const faces = [
  [
    'sync',
    (args: readonly string[], options: Parameters<typeof runGitSync>[1]) =>
      Promise.resolve().then(() => runGitSync(args, options)),
  ],
  ['async', runGit],
] as const;

for (const [face, run] of faces) {
  git(
    `${face}: every argument is data, a hostile commit message passes byte for byte through argv and stdin`,
    async () => {
      const repo = makeGitRepo({ files: { 'a.txt': 'a\n' } });
      for (const title of hostileTitles(6)) {
        await run(['commit', '-q', '--allow-empty', '-m', title], { cwd: repo });
        assert.is(
          (await run(['log', '-1', '--format=%B'], { cwd: repo })).stdout.replace(/\n+$/, ''),
          title.replace(/\n+$/, ''),
        );
        const blob = (await run(['hash-object', '-w', '--stdin'], { cwd: repo, input: title })).stdout.trim();
        assert.equal((await run(['cat-file', 'blob', blob], { cwd: repo })).bytes, Buffer.from(title));
      }
    },
  );

  git(
    `${face}: a failure is one GitError carrying the args, exit code, stderr; allowFailure returns it instead`,
    async () => {
      const repo = makeGitRepo();
      const args = ['rev-parse', '--verify', 'no-such-ref-$(id)'];
      const error = await run(args, { cwd: repo }).then(
        () => null,
        (e: unknown) => e,
      );
      assert.instance(error, GitError);
      assert.instance(error, InternalError);
      const gitError = error as GitError;
      assert.equal(gitError.args, args);
      assert.is(gitError.code, 128);
      assert.is(gitError.exitCode, 2);
      assert.match(gitError.stderr, /Needed a single revision/);
      assert.is(gitError.message, `git rev-parse failed (exit 128) in ${repo}: fatal: Needed a single revision`);
      const allowed = await run(args, { cwd: repo, allowFailure: true });
      assert.is(allowed.code, 128);
      assert.is(allowed.stdout, '');
      const coded = await run(args, { cwd: repo, exitCode: 5 }).then(
        () => null,
        (e: GitError) => e,
      );
      assert.is(coded?.exitCode, 5);
    },
  );

  git(`${face}: git that cannot be started is a GitError with no exit code and its cause`, async () => {
    const gone = join(makeTempDir(), 'gone');
    const error = await run(['status'], { cwd: gone }).then(
      () => null,
      (e: GitError) => e,
    );
    assert.instance(error, GitError);
    assert.is(error?.code, null);
    assert.ok(error?.cause instanceof Error);
    assert.match(error?.message ?? '', /^git status could not run in .*gone: .*ENOENT/);
  });

  git(`${face}: the ceiling keeps git out of the repository around a folder whose .git is gone`, async () => {
    const repo = makeGitRepo();
    const inner = join(repo, 'inner');
    mkdirSync(inner);
    assert.is((await run(['rev-parse', '--show-toplevel'], { cwd: inner })).stdout.trim(), repo);
    const error = await run(['rev-parse', '--show-toplevel'], { cwd: inner, ceiling: true }).then(
      () => null,
      (e: GitError) => e,
    );
    assert.match(error?.stderr ?? '', /not a git repository/);
  });
}

git("isolate drops the caller's GIT_* variables but keeps ssh; extraEnv is laid over", async () => {
  const repo = makeGitRepo();
  const elsewhere = makeGitRepo();
  const env = {
    ...process.env,
    GIT_DIR: join(elsewhere, '.git'),
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
    LEAP_X: '1',
  };
  assert.is(gitTextSync(['rev-parse', '--absolute-git-dir'], { cwd: repo, env }), join(elsewhere, '.git'));
  assert.is(await gitText(['rev-parse', '--absolute-git-dir'], { cwd: repo, env, isolate: true }), join(repo, '.git'));
  const made = gitEnv({ cwd: repo, env, isolate: true, ceiling: '/x', extraEnv: { GIT_TRACE: '0' } });
  assert.is(made.GIT_DIR, undefined);
  assert.is(made.GIT_SSH_COMMAND, 'ssh -o BatchMode=yes');
  assert.is(made.LEAP_X, '1');
  assert.is(made.GIT_CEILING_DIRECTORIES, '/x');
  assert.is(made.GIT_TRACE, '0');
  assert.is(gitEnv({ cwd: repo, env }), env);
});

git('a git killed by a signal reports 128 + its number', async () => {
  const repo = makeGitRepo();
  // A hook that kills its git: `git commit` runs pre-commit, and the hook ends the commit with KILL.
  writeFileSync(join(repo, '.git/hooks/pre-commit'), '#!/bin/sh\nkill -9 $PPID\n', { mode: 0o755 });
  const ran = await runGit(['commit', '-q', '--allow-empty', '-m', 'x'], { cwd: repo, allowFailure: true });
  assert.is(ran.code, 128 + 9);
  const sync = runGitSync(['commit', '-q', '--allow-empty', '-m', 'x'], { cwd: repo, allowFailure: true });
  assert.is(sync.code, 128 + 9);
  rmSync(join(repo, '.git/hooks/pre-commit'));
});

git('input git does not read is no unhandled error', async () => {
  const repo = makeGitRepo();
  const ran = await runGit(['rev-parse', 'HEAD'], { cwd: repo, input: Buffer.alloc(4 << 20, 'x') });
  assert.match(ran.stdout, /^[0-9a-f]{40}\n$/);
});

git('the command is named by its subcommand words, never by its data', () => {
  assert.is(gitCommandName(['worktree', 'add', '-B', 'leap/s/b']), 'git worktree add');
  assert.is(gitCommandName(['commit', '-m', 'a `title`']), 'git commit');
  assert.is(gitCommandName(['-c', 'x=y', 'commit']), 'git');
  assert.is(gitCommandName([]), 'git');
  assert.equal(splitNul('a\0b c\0\0'), ['a', 'b c']);
});

git.run();
