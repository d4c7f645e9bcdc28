// toolchainRevision on real repositories holding copies of the toolchain's layout: its own clone's commit,
// never the commit of a user's repository it is installed in. One fixture folder for every case.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir, repoRoot, suite } from '@leap/test-utils';
import { TOOLCHAIN_VERSION, toolchainRevision } from '../src/run-files.js';

// The running file of a copy of the toolchain's layout under `top`: `top/package.json` (the toolchain's
// name or another) and `top/packages/conductor/{package.json,dist/bundle/index.js}`.
function layout(top: string, rootName = 'leap-toolchain'): string {
  const file = join(top, 'packages', 'conductor', 'dist', 'bundle', 'index.js');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(join(top, 'package.json'), JSON.stringify({ name: rootName }));
  writeFileSync(
    join(top, 'packages', 'conductor', 'package.json'),
    JSON.stringify({ name: '@leap/conductor', version: '0.1.0' }),
  );
  writeFileSync(file, '');
  return file;
}

const test = suite('toolchainRevision');
let place = '';
test.before(() => {
  place = makeTempDir();
});
test.after(cleanupTempDirs);

test("installed under a user's repository (its node_modules), the package version, not the user's commit", () => {
  const user = makeGitRepo();
  const userHead = git(user, 'rev-parse', 'HEAD').trim();
  // npm's layout: the package two folders under node_modules, whose parent is the user's repository.
  const file = join(user, 'node_modules', '@leap', 'conductor', 'dist', 'bundle', 'index.js');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    join(user, 'node_modules', '@leap', 'conductor', 'package.json'),
    JSON.stringify({ name: '@leap/conductor', version: '0.1.0' }),
  );
  writeFileSync(file, '');
  assert.is(toolchainRevision(file), TOOLCHAIN_VERSION);
  // Even with the toolchain's whole layout copied into the user's repository, below its top.
  const vendored = layout(join(user, 'vendor', 'leap'));
  assert.is.not(toolchainRevision(vendored), userHead);
  assert.is(toolchainRevision(vendored), TOOLCHAIN_VERSION);
});

test("in its own clone, the clone's HEAD commit; in a linked worktree of it, that worktree's", () => {
  const clone = join(place, 'clone');
  const file = layout(clone);
  git(clone, 'init', '-q', '-b', 'main');
  git(clone, '-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '-q', '--allow-empty', '-m', 'one');
  assert.is(toolchainRevision(file), git(clone, 'rev-parse', 'HEAD').trim());
  git(clone, '-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '-q', '--allow-empty', '-m', 'two');
  const worktree = join(place, 'wt');
  git(clone, 'worktree', 'add', '-q', '--detach', worktree, 'HEAD~1');
  const inWorktree = layout(worktree);
  assert.is(toolchainRevision(inWorktree), git(worktree, 'rev-parse', 'HEAD').trim());
  assert.is.not(toolchainRevision(inWorktree), toolchainRevision(file));
});

test('a clone with no commit yet, a top that is not the toolchain, no package.json at all: the version', () => {
  const empty = join(place, 'empty');
  const file = layout(empty);
  git(empty, 'init', '-q');
  assert.is(toolchainRevision(file), TOOLCHAIN_VERSION);
  const other = join(place, 'other');
  const otherFile = layout(other, 'someone-else');
  git(other, 'init', '-q');
  git(other, '-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '-q', '--allow-empty', '-m', 'x');
  assert.is(toolchainRevision(otherFile), TOOLCHAIN_VERSION);
  assert.is(toolchainRevision('/no-such-folder-leap/x.js'), TOOLCHAIN_VERSION);
});

test("run from this checkout (the source), the checkout's own HEAD", () => {
  assert.is(toolchainRevision(), git(repoRoot, 'rev-parse', 'HEAD').trim());
});

test.run();
