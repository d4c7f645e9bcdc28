import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { constants, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { changedPaths, displayPath, fingerprintTree } from '../src/jury/tree-fingerprint.js';
import type { TreeFingerprint } from '../src/jury/tree-fingerprint.js';

const paths = (print: TreeFingerprint | null) => [...(print?.keys() ?? [])].map(displayPath).sort();
const stateOf = (print: TreeFingerprint | null, path: string) => print?.get(Buffer.from(path).toString('latin1')) ?? '';

const tree = suite('fingerprintTree');
tree.after.each(cleanupTempDirs);

tree(
  'HEAD, changed and untracked paths with their bytes; the state folder left out; renames, links and folders read',
  async () => {
    const repo = makeGitRepo({
      files: { 'a.txt': 'a\n', 'old name.txt': 'o\n', 'gone.txt': 'g\n', 'was file': 'f\n' },
    });
    const state = join(repo, '.tdd');
    mkdirSync(state);
    writeFileSync(join(state, 'review.out'), 'the supervisors write here\n');
    const clean = await fingerprintTree(repo, state, process.env);
    assert.equal(paths(clean), ['HEAD'], 'a clean tree: HEAD alone, the state folder left out');

    git(repo, 'mv', 'old name.txt', 'new näme.txt');
    rmSync(join(repo, 'gone.txt'));
    rmSync(join(repo, 'was file'));
    mkdirSync(join(repo, 'was file'));
    writeFileSync(join(repo, 'was file', 'inner'), 'i\n');
    symlinkSync('nowhere', join(repo, 'dangling'));
    writeFileSync(join(repo, 'a.txt'), 'a, changed\n');
    const before = await fingerprintTree(repo, state, process.env);
    assert.equal(paths(before), [
      'HEAD',
      'a.txt',
      'dangling',
      'gone.txt',
      'new näme.txt',
      'was file',
      'was file/inner',
    ]);
    const mode = (path: string) => Number(stateOf(before, path).split('\0')[1]?.split(':')[1]) & constants.S_IFMT;
    assert.equal(
      [mode('dangling'), mode('was file'), mode('a.txt')],
      [constants.S_IFLNK, constants.S_IFDIR, constants.S_IFREG],
      'a link is read as a link, a folder as a folder',
    );
    assert.match(stateOf(before, 'gone.txt'), /\0missing$/);

    writeFileSync(join(state, 'review.out'), "more of the supervisors' own output\n");
    assert.equal(
      changedPaths(before!, (await fingerprintTree(repo, state, process.env))!),
      [],
      'the same tree, whatever the state folder holds',
    );
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(join(repo, 'a.txt'), 'a, changed\n');
    assert.equal(
      changedPaths(before!, (await fingerprintTree(repo, state, process.env))!),
      ['a.txt'],
      'a write that puts the same bytes back still counts',
    );
    writeFileSync(join(repo, 'a.txt'), 'a, changed again\n');
    git(repo, 'commit', '-q', '-m', 'the staged rename');
    assert.equal(
      changedPaths(before!, (await fingerprintTree(repo, state, process.env))!),
      ['HEAD', 'a.txt', 'new näme.txt'],
      'a commit moves HEAD and settles what it took',
    );
  },
);

tree(
  'outside a git work tree there is no fingerprint; a state folder outside the repository leaves nothing out',
  async () => {
    assert.is(await fingerprintTree(makeTempDir(), makeTempDir(), process.env), null);
    const repo = makeGitRepo({ files: { 'a.txt': 'a\n' } });
    mkdirSync(join(repo, '.tdd'));
    writeFileSync(join(repo, '.tdd', 'x'), 'x\n');
    const print = await fingerprintTree(repo, makeTempDir(), process.env);
    assert.equal(paths(print), ['.tdd/x', 'HEAD']);
  },
);

tree(
  'the state folder is left out however it is spelled: through a link, with non-ASCII letters, named like ..tdd',
  async () => {
    const repo = makeGitRepo({ files: { 'a.txt': 'a\n' } });
    for (const name of ['état', '..tdd']) {
      mkdirSync(join(repo, name));
      writeFileSync(join(repo, name, 'leaf.pid'), '1\n');
      const before = await fingerprintTree(repo, join(repo, name), process.env);
      writeFileSync(join(repo, name, 'leaf.pid'), '2\n');
      assert.equal(changedPaths(before!, (await fingerprintTree(repo, join(repo, name), process.env))!), [], name);
    }
    const link = join(makeTempDir(), 'repo-link');
    symlinkSync(repo, link);
    const notYet = await fingerprintTree(repo, join(link, '.tdd'), process.env);
    mkdirSync(join(repo, '.tdd'));
    writeFileSync(join(repo, '.tdd', 'x'), 'x\n');
    const made = await fingerprintTree(repo, join(link, '.tdd'), process.env);
    assert.equal(changedPaths(notYet!, made!), [], 'a state folder named through a link, made after the first look');
    writeFileSync(join(repo, '.tdd', 'x'), 'x, more\n');
    assert.equal(
      changedPaths(made!, (await fingerprintTree(repo, join(link, '.tdd'), process.env))!),
      [],
      'and written to',
    );
  },
);

tree('file names that are not UTF-8 stay apart; a write deep in an untracked nested repository counts', async () => {
  const repo = makeGitRepo({ files: { 'a.txt': 'a\n' } });
  const raw = (name: string) => Buffer.concat([Buffer.from(`${repo}/`), Buffer.from(name, 'latin1')]);
  writeFileSync(raw('bad\xfe'), '1\n');
  writeFileSync(raw('bad\xff'), '1\n');
  mkdirSync(join(repo, 'nested', 'deep'), { recursive: true });
  git(join(repo, 'nested'), 'init', '-q');
  writeFileSync(join(repo, 'nested', 'deep', 'y'), 'y\n');
  const before = await fingerprintTree(repo, join(repo, '.tdd'), process.env);
  assert.is(before?.size, 4, 'HEAD, both odd names apart, the nested repository whole');
  await new Promise((r) => setTimeout(r, 20));
  writeFileSync(raw('bad\xfe'), '2\n');
  writeFileSync(join(repo, 'nested', 'deep', 'y'), 'y, more\n');
  const changed = changedPaths(before!, (await fingerprintTree(repo, join(repo, '.tdd'), process.env))!);
  assert.equal(changed, ['bad\ufffd', 'nested/']);
});

tree.run();
