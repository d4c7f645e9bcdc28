import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { constants, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { changedPaths, fingerprintTree } from '../src/jury/tree-fingerprint.js';

const tree = suite('fingerprintTree');
tree.after.each(cleanupTempDirs);

tree('HEAD, changed and untracked paths with their bytes; the state folder left out; renames, links and folders read', async () => {
  const repo = makeGitRepo({ files: { 'a.txt': 'a\n', 'old name.txt': 'o\n', 'gone.txt': 'g\n', 'was file': 'f\n' } });
  const state = join(repo, '.tdd');
  mkdirSync(state);
  writeFileSync(join(state, 'review.out'), 'the supervisors write here\n');
  const clean = await fingerprintTree(repo, state, process.env);
  assert.equal([...(clean?.keys() ?? [])], ['HEAD'], 'a clean tree: HEAD alone, the state folder left out');

  git(repo, 'mv', 'old name.txt', 'new näme.txt');
  rmSync(join(repo, 'gone.txt'));
  rmSync(join(repo, 'was file'));
  mkdirSync(join(repo, 'was file'));
  writeFileSync(join(repo, 'was file', 'inner'), 'i\n');
  symlinkSync('nowhere', join(repo, 'dangling'));
  writeFileSync(join(repo, 'a.txt'), 'a, changed\n');
  const before = await fingerprintTree(repo, state, process.env);
  assert.equal([...(before?.keys() ?? [])].sort(), ['HEAD', 'a.txt', 'dangling', 'gone.txt', 'new näme.txt', 'was file', 'was file/inner']);
  const mode = (path: string) => Number((before?.get(path) ?? '').split('\0')[1]?.split(':')[1]) & constants.S_IFMT;
  assert.equal([mode('dangling'), mode('was file'), mode('a.txt')], [constants.S_IFLNK, constants.S_IFDIR, constants.S_IFREG], 'a link is read as a link, a folder as a folder');
  assert.match(before?.get('gone.txt') ?? '', /\0missing$/);

  writeFileSync(join(state, 'review.out'), 'more of the supervisors\' own output\n');
  assert.equal(changedPaths(before!, (await fingerprintTree(repo, state, process.env))!), [], 'the same tree, whatever the state folder holds');
  await new Promise((r) => setTimeout(r, 20));
  writeFileSync(join(repo, 'a.txt'), 'a, changed\n');
  assert.equal(changedPaths(before!, (await fingerprintTree(repo, state, process.env))!), ['a.txt'], 'a write that puts the same bytes back still counts');
  writeFileSync(join(repo, 'a.txt'), 'a, changed again\n');
  git(repo, 'commit', '-q', '-m', 'the staged rename');
  assert.equal(changedPaths(before!, (await fingerprintTree(repo, state, process.env))!), ['HEAD', 'a.txt', 'new näme.txt'], 'a commit moves HEAD and settles what it took');
});

tree('outside a git work tree there is no fingerprint; a state folder outside the repository leaves nothing out', async () => {
  assert.is(await fingerprintTree(makeTempDir(), makeTempDir(), process.env), null);
  const repo = makeGitRepo({ files: { 'a.txt': 'a\n' } });
  mkdirSync(join(repo, '.tdd'));
  writeFileSync(join(repo, '.tdd', 'x'), 'x\n');
  const print = await fingerprintTree(repo, makeTempDir(), process.env);
  assert.equal([...(print?.keys() ?? [])].sort(), ['.tdd/x', 'HEAD']);
});

tree.run();
