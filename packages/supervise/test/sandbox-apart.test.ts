// A writer kept apart, through a real bwrap (CONTRACT section 13): it writes a copy of its tree, bound at the tree's
// path; its changes come back when it ends. What someone else changes meanwhile stays theirs, a clash included;
// ignored folders (node_modules) are the tree's own, written in place. Anywhere the repository lies.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
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
    const ran = supervise({
      name: 'leaf',
      command: 'bash',
      args: ['-c', LEAF, 'leaf', '$x é', talk],
      cwd: repo,
      env,
      sandbox: { role: 'writer', tree: repo, apart: copy, write: [talk] },
    });
    await waitFor(() => existsSync(join(talk, 'waiting')), 30_000, 'the leaf spins');
    assert.not.ok(existsSync(join(repo, 'new.txt')), `${repo}: the tree is untouched while the leaf works`);
    assert.is(
      readFileSync(join(repo, 'node_modules', '.c'), 'utf8'),
      'cached\n',
      `${repo}: an ignored folder is written in place`,
    );
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
    assert.is(
      readFileSync(join(`${copy}.clashed`, 'both.txt'), 'utf8'),
      "the leaf's\n",
      `${repo}: and the leaf's beside`,
    );
    assert.not.ok(existsSync(copy), `${repo}: the copy is gone`);
    const end = {
      wrote: ['d', 'd/e', 'd/e/f', 'gone.txt', 'new.txt', 'run.sh'],
      clashed: ['both.txt'],
      clashedDir: `${copy}.clashed`,
    };
    assert.equal(putBack(copy), end, `${repo}: a resumed run reads the same`);
    assert.is(
      git(repo, 'status', '--porcelain'),
      ' M both.txt\n D gone.txt\n M run.sh\n?? d/\n?? new.txt\n?? user.txt\n',
      repo,
    );
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

/** Every file under `dir` but .git and .tdd, and the leaf's clashed versions: path, mode and text. */
function snapshot(dir: string, clashed: string): string[] {
  const out: string[] = [];
  const walk = (at: string, root: string): void => {
    for (const e of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, e.name);
      if (at === dir && (e.name === '.git' || e.name === '.tdd')) continue;
      if (e.isDirectory()) walk(path, root);
      else out.push(`${relative(root, path)} ${statSync(path).mode.toString(8)} ${readFileSync(path, 'utf8')}`);
    }
  };
  walk(dir, dir);
  if (existsSync(clashed)) walk(clashed, join(clashed, '..'));
  return out.sort();
}

test('apart: a put-back killed at each of its steps, then run again as a resumed run does, ends as one never killed', () => {
  const base = mkdtempSync(join(tmpdir(), 'leap-apart-kill-'));
  made.push(base);
  const setUp = (name: string) => {
    const repo = join(base, name, 'repo');
    project(repo);
    const copy = join(repo, '.tdd', 'leaf.apart');
    mkdirSync(join(repo, 'x'));
    writeFileSync(join(repo, 'x', 'a'), 'a\n');
    makeApart(repo, copy);
    rmSync(join(copy, 'x'), { recursive: true });
    writeFileSync(join(copy, 'x'), "the leaf's x\n");
    writeFileSync(join(copy, 'new.txt'), 'new $x é\n');
    rmSync(join(copy, 'gone.txt'));
    writeFileSync(join(copy, 'both.txt'), "the leaf's\n");
    mkdirSync(join(copy, 'd', 'e'), { recursive: true });
    writeFileSync(join(copy, 'd', 'e', 'f'), 'deep\n');
    chmodSync(join(copy, 'run.sh'), 0o755);
    writeFileSync(join(repo, 'user.txt'), "the user's\n");
    writeFileSync(join(repo, 'both.txt'), "the user's\n");
    writeFileSync(join(repo, 'run.sh'), "echo the user's\n");
    return { repo, copy };
  };
  const whole = setUp('whole');
  const want = putBack(whole.copy);
  const wantFiles = snapshot(whole.repo, `${whole.copy}.clashed`);
  assert.equal(want?.clashed, ['both.txt', 'run.sh']);
  assert.ok(want?.wrote.includes('x'), 'a folder made a file');
  const apart = fileURLToPath(new URL('../src/apart.ts', import.meta.url));
  const script = 'const { putBack } = await import(process.argv[1]); putBack(process.argv[2]);';
  for (let k = 1; ; k++) {
    const { repo, copy } = setUp(`k${k}`);
    const env = { ...process.env, LEAP_APART_KILL_AT: String(k) };
    const killed = spawnSync(
      process.execPath,
      [...process.execArgv, '--input-type=module', '-e', script, apart, copy],
      { env, encoding: 'utf8' },
    );
    if (killed.signal !== 'SIGKILL') {
      assert.is(killed.status, 0, killed.stderr);
      assert.ok(k > 6, `the put-back has a kill point at each step (${k - 1})`);
      break;
    }
    assert.equal(putBack(copy), { ...want, clashedDir: `${copy}.clashed` }, `killed at ${k}`);
    assert.equal(snapshot(repo, `${copy}.clashed`), wantFiles, `killed at ${k}`);
  }
});

test.run();
