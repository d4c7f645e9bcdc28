// A writer kept apart, through a real bwrap (CONTRACT section 13): it writes a copy of its tree, bound at the tree's
// path; its changes come back when it ends. What someone else changes meanwhile stays theirs, a clash included;
// ignored folders (node_modules) are the tree's own, written in place. Anywhere the repository lies.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, waitFor } from '@leap/test-utils';
import { supervise } from '../src/supervise.js';
import { makeApart, putBack } from '../src/apart.js';
import { killStrays } from './helpers.js';

const made: string[] = [];
test.after.each(() => killStrays());
test.after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function project(repo: string): void {
  const files: Record<string, string> = {
    '.gitignore': 'node_modules/\n',
    'gone.txt': 'the leaf removes this\n',
    'both.txt': 'before\n',
    'run.sh': 'echo run\n',
    'node_modules/dep/index.js': "module.exports = 'dep';\n",
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(repo, path, '..'), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '-A');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'initial');
}

// The leaf changes its tree, then spins on a CPU until the test, having written its own files, lets it go on.
const LEAF = [
  'echo "leaf $1" > new.txt; rm gone.txt; mkdir -p d/e; echo deep > d/e/f; chmod +x run.sh; echo cached > node_modules/.c',
  'touch "$2/waiting"; while [ ! -e "$2/go" ]; do :; done; echo "the leaf\'s" > both.txt',
].join('; ');

test("apart: the leaf's changes come back at its end; the user's made meanwhile stay theirs, a clash kept beside", async () => {
  const base = mkdtempSync(join(tmpdir(), 'leap-apart-'));
  made.push(base);
  const closed = join(base, 'closed');
  mkdirSync(closed);
  chmodSync(closed, 0o700);
  for (const repo of [join(base, 'repo'), join(closed, 'repo'), join(base, 'a "b" \'c\' $HOME `id` é漢', 'repo')]) {
    project(repo);
    const talk = mkdtempSync(join(base, 'talk-'));
    const state = mkdtempSync(join(base, 'state-'));
    const copy = join(state, 'leaf.apart');
    const env = { PATH: process.env.PATH, HOME: base, VERI_TIMEOUT: '60', VERI_STATE_DIR: state };
    const ran = supervise({ name: 'leaf', command: 'bash', args: ['-c', LEAF, 'leaf', '$x é', talk], cwd: repo, env, sandbox: { role: 'writer', tree: repo, apart: copy, write: [talk] } });
    await waitFor(() => existsSync(join(talk, 'waiting')), 30_000, 'the leaf spins');
    assert.not.ok(existsSync(join(repo, 'new.txt')), `${repo}: the tree is untouched while the leaf works`);
    assert.is(readFileSync(join(repo, 'node_modules', '.c'), 'utf8'), 'cached\n', `${repo}: an ignored folder is written in place`);
    writeFileSync(join(repo, 'user.txt'), 'the user\'s "own" $HOME\n');
    writeFileSync(join(repo, 'both.txt'), "the user's\n");
    writeFileSync(join(talk, 'go'), '');
    assert.is((await ran).code, 0, repo);
    assert.is(readFileSync(join(repo, 'new.txt'), 'utf8'), 'leaf $x é\n', repo);
    assert.not.ok(existsSync(join(repo, 'gone.txt')), repo);
    assert.is(readFileSync(join(repo, 'd', 'e', 'f'), 'utf8'), 'deep\n', repo);
    assert.ok((statSync(join(repo, 'run.sh')).mode & 0o111) !== 0, `${repo}: a mode change comes back`);
    assert.is(readFileSync(join(repo, 'user.txt'), 'utf8'), 'the user\'s "own" $HOME\n', repo);
    assert.is(readFileSync(join(repo, 'both.txt'), 'utf8'), "the user's\n", `${repo}: a clash keeps the user's`);
    assert.is(readFileSync(join(`${copy}.clashed`, 'both.txt'), 'utf8'), "the leaf's\n", `${repo}: and the leaf's beside`);
    assert.not.ok(existsSync(copy), `${repo}: the copy is gone`);
    const end = { wrote: ['d', 'd/e', 'd/e/f', 'gone.txt', 'new.txt', 'run.sh'], clashed: ['both.txt'], clashedDir: `${copy}.clashed` };
    assert.equal(putBack(copy), end, `${repo}: a resumed run reads the same`);
    assert.is(git(repo, 'status', '--porcelain'), ' M both.txt\n D gone.txt\n M run.sh\n?? d/\n?? new.txt\n?? user.txt\n', repo);
  }
});

test("apart: a folder the leaf made a file keeps the user's new file in it; the leaf's file is kept beside", () => {
  const repo = mkdtempSync(join(tmpdir(), 'leap-apart-dir-'));
  made.push(repo);
  mkdirSync(join(repo, 'x'));
  writeFileSync(join(repo, 'x', 'a'), 'a\n');
  git(repo, 'init', '-q', '-b', 'main');
  const copy = join(repo, '.tdd', 'leaf.apart');
  makeApart(repo, copy);
  rmSync(join(copy, 'x'), { recursive: true });
  writeFileSync(join(copy, 'x'), "the leaf's x\n");
  writeFileSync(join(repo, 'x', 'user'), "the user's\n");
  assert.equal(putBack(copy), { wrote: ['x/a'], clashed: ['x'], clashedDir: `${copy}.clashed` });
  assert.equal(readdirSync(join(repo, 'x')), ['user']);
  assert.is(readFileSync(join(`${copy}.clashed`, 'x'), 'utf8'), "the leaf's x\n");
});

test.run();
