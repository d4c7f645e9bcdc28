// The user's files during a run (issue 44 section 5): a file that appears or changes in the work tree during a
// leaf, and that the leaf did not write, is never committed silently and never lost: it is left out of the phase's
// commit, kept in the work tree as it is, and said in the narration and a `mark` event. Sandboxed, the leaf writes
// a copy (exact, even while it runs); unsandboxed, the test writes while the leaf is blocked on a fifo, seen idle.
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, makeTempDir, suite, waitFor } from '@leap/test-utils';
import { runTdd } from '../src/index.js';
import { notTheLeafs, watchLeafActivity, type LeafActivity } from '../src/user-writes.js';
import { cleanEnv, fixture, makeProject, oneStepRun, readEvents, subjects } from './helpers.js';

const users = suite("the user's writes during a leaf");
users.after.each(cleanupTempDirs);

/** The activity file's quiet spans (none while it cannot be read). */
function quietSpans(file: string): [number, number][] {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as LeafActivity).quiet;
  } catch {
    return [];
  }
}

/**
 * Let `write` run while the leaf is seen idle, and wait until it is seen idle past it. The test's own process has
 * children too (tsx's esbuild service): when one of them runs meanwhile, the span breaks and the write is made again.
 */
async function writeWhileIdle(activity: string, write: () => void): Promise<void> {
  for (;;) {
    await waitFor(() => quietSpans(activity).some(([, b]) => b > Date.now() - 150), 20_000, 'the leaf seen idle');
    const from = Date.now() - 1;
    write();
    const to = Date.now() + 60;
    const seen = await waitFor(
      () => {
        const spans = quietSpans(activity);
        if (spans.some(([a, b]) => a <= from - 25 && b >= to)) return 'covered';
        return spans.some(([a]) => a > from - 25) ? 'broken' : null;
      },
      20_000,
      'the leaf seen idle over the write, or a new span begun',
    );
    if (seen === 'covered') return;
  }
}

users(
  'watchLeafActivity and notTheLeafs: a write while the child is blocked is not its own, its own write is',
  async () => {
    const dir = makeTempDir();
    const fifo = join(dir, 'go');
    execFileSync('mkfifo', [fifo]);
    writeFileSync(join(dir, 'gone.txt'), 'the child removes nothing; the user does\n');
    const file = join(dir, 'leaf.activity');
    const watch = watchLeafActivity(file);
    const child = spawn(
      'bash',
      ['-c', 'touch "$1/waiting"; read -r _ < "$1/go"; echo mine > "$1/child.txt"', 'leaf', dir],
      { stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      await waitFor(() => existsSync(join(dir, 'waiting')));
      await writeWhileIdle(file, () => {
        writeFileSync(join(dir, 'user.txt'), 'the user wrote this\n');
        rmSync(join(dir, 'gone.txt'), { force: true });
      });
      release(fifo);
      await exited;
    } finally {
      child.kill('SIGKILL');
    }
    const activity = watch.stop();
    const changed = [
      { path: 'user.txt', deleted: false },
      { path: 'gone.txt', deleted: true },
      { path: 'child.txt', deleted: false },
      { path: 'waiting', deleted: false },
    ];
    assert.equal(
      notTheLeafs(dir, changed, activity),
      ['user.txt'],
      "the deletion dates by the folder, which the child changed after: counted as the child's",
    );
    assert.equal(
      notTheLeafs(dir, changed, { ...activity, quiet: [] }),
      [],
      'with no quiet span seen, everything in its life is its own',
    );
    // An inode's change time lags the clock by up to a kernel tick: written once the clock is past that, it dates after the leaf.
    await waitFor(() => Date.now() > (activity.ended as number) + 30);
    writeFileSync(join(dir, 'later.txt'), 'after the leaf\n');
    // A write after the leaf is not its own; it also dates the folder, so the deletion now counts as not the child's.
    assert.equal(notTheLeafs(dir, [{ path: 'later.txt', deleted: false }, ...changed], activity), [
      'later.txt',
      'user.txt',
      'gone.txt',
    ]);
  },
);

/** Let a leaf blocked on opening `fifo` go on (a writer that finds no reader changes nothing). */
function release(fifo: string): void {
  try {
    const fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    writeSync(fd, 'go\n');
    closeSync(fd);
  } catch {
    // No reader: the leaf is not waiting.
  }
}

const RED = [
  `printf '%s\\n' "import { test } from 'node:test';" "import assert from 'node:assert/strict';"`,
  `"import { value } from '../src/step1.js';" "test('value', () => assert.equal(value, 1));" > test/step1.test.js`,
].join(' ');

/** Agents: `dev` runs the bash `cases` of $LEAP_PHASE (given DIR, a folder it may write: $1); `ver` passes. */
function agentsRunning(cases: string): { file: string; dir: string } {
  const dir = makeTempDir('leap-waiting-agents-');
  const script = join(dir, 'dev.sh');
  const body = `cat > /dev/null\ncase "$LEAP_PHASE" in\n${cases}\nesac\necho "$LEAP_PHASE done"\n`;
  writeFileSync(script, `#!/bin/bash\n${body}`);
  chmodSync(script, 0o755);
  const file = join(dir, 'agents.json');
  const paths = { write: [dir] };
  writeFileSync(
    file,
    JSON.stringify({
      agents: {
        dev: { plugin: 'command', family: 'replayed', command: ['bash', script, dir], paths },
        ver: { plugin: 'command', family: 'checker', command: [process.execPath, fixture('pass-verifier.mjs')], paths },
      },
    }),
  );
  return { file, dir };
}

/** Agents: `dev` writes the step's test, then (green) waits on DIR/go before its implementation; `ver` passes. */
function waitingAgents(): { file: string; dir: string } {
  return agentsRunning(`  red) ${RED} ;;
  green) touch "$1/waiting"; read -r _ < "$1/go"; echo 'export const value = 1;' > src/step1.js ;;
  refactor) printf '%s\\n' '// the one value' 'export const value = 1;' > src/step1.js ;;`);
}

users(
  'sandboxed: files the user writes while the leaf works are left out, said and kept; a clash keeps both',
  async () => {
    const repo = makeProject();
    writeFileSync(join(repo, 'README.md'), '# slug\n');
    git(repo, 'add', 'README.md');
    git(repo, 'commit', '-qm', 'readme');
    // Green spins on a CPU (the timing rule would count any write meanwhile as its own) until DIR/go, then writes
    // its implementation and its own README.md.
    const agents = agentsRunning(`  red) ${RED} ;;
  green) touch "$1/waiting"; while [ ! -e "$1/go" ]; do :; done
    echo 'export const value = 1;' > src/step1.js; echo "the leaf's readme" > README.md ;;
  refactor) printf '%s\\n' '// the one value' 'export const value = 1;' > src/step1.js ;;`);
    const lines: string[] = [];
    const running = runTdd(oneStepRun(repo, agents.file, { progress: (l: string) => lines.push(l) }));
    const readme = '# slug\n\nThe user\'s own words, "quoted", $HOME, ü.\n';
    const notes = 'notes the user keeps beside the code\n';
    try {
      await waitFor(() => existsSync(join(agents.dir, 'waiting')), 60_000, 'the green leaf spins');
      writeFileSync(join(repo, 'README.md'), readme);
      writeFileSync(join(repo, 'notes.txt'), notes);
    } finally {
      writeFileSync(join(agents.dir, 'go'), '');
    }
    const result = await running;
    assert.is(result.code, 0, JSON.stringify(result.bail));
    const title = 'Lowercase and join with dashes';
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${title}`, `green: ${title}`, `refactor: ${title}`]);
    // In no commit of the run; in the work tree byte for byte; the leaf's README kept beside.
    assert.is(git(repo, 'log', '--format=%s', 'main..HEAD', '--', 'README.md', 'notes.txt'), '');
    assert.is(
      git(repo, 'show', 'HEAD~1:src/step1.js'),
      'export const value = 1;\n',
      "the leaf's own write is in its green commit",
    );
    assert.is(readFileSync(join(repo, 'README.md'), 'utf8'), readme);
    assert.is(readFileSync(join(repo, 'notes.txt'), 'utf8'), notes);
    assert.is(
      readFileSync(join(repo, '.tdd', 'develop-green.apart.clashed', 'README.md'), 'utf8'),
      "the leaf's readme\n",
    );
    assert.is(git(repo, 'status', '--porcelain'), ' M README.md\n?? notes.txt\n');
    const marks = readEvents(repo).filter((e) => e.event === 'mark' && e.name === 'user-files-left-out');
    assert.equal(
      marks.map((e) => [e.anchor, e.phase, e.paths, e.clashed]),
      [
        ['develop-green', 'green', ['README.md', 'notes.txt'], ['README.md']],
        ['develop-refactor', 'refactor', ['README.md', 'notes.txt'], undefined],
      ],
    );
    const said =
      'README.md, notes.txt: changed in the work tree while develop-green ran or after it, but not by the leaf';
    const at = lines.findIndex(
      (l) => l.startsWith(said) && l.endsWith('left out of the green commit and kept in the work tree as they are'),
    );
    assert.ok(at >= 0, lines.join('\n'));
    assert.is(
      lines[at + 1],
      "README.md: changed by develop-green too; the tree keeps yours, the leaf's is in .tdd/develop-green.apart.clashed",
    );
  },
);

users(
  'unsandboxed: a tracked change and an untracked file written while the leaf is idle are left out and kept',
  async () => {
    const repo = makeProject();
    writeFileSync(join(repo, 'README.md'), '# slug\n');
    git(repo, 'add', 'README.md');
    git(repo, 'commit', '-qm', 'readme');
    const agents = waitingAgents();
    execFileSync('mkfifo', [join(agents.dir, 'go')]);
    const lines: string[] = [];
    const running = runTdd(oneStepRun(repo, agents.file, { sandbox: 'off', progress: (l: string) => lines.push(l) }));
    const readme = '# slug\n\nThe user\'s own words, "quoted", $HOME, ü.\n';
    const notes = 'notes the user keeps beside the code\n';
    try {
      await waitFor(() => existsSync(join(agents.dir, 'waiting')), 60_000, 'the green leaf waits');
      await writeWhileIdle(join(repo, '.tdd', 'develop-green.activity'), () => {
        writeFileSync(join(repo, 'README.md'), readme);
        writeFileSync(join(repo, 'notes.txt'), notes);
      });
    } finally {
      release(join(agents.dir, 'go'));
    }
    const result = await running;
    assert.is(result.code, 0, JSON.stringify(result.bail));
    assert.equal(subjects(repo), [
      'plan: issue 1',
      'red: Lowercase and join with dashes',
      'green: Lowercase and join with dashes',
      'refactor: Lowercase and join with dashes',
    ]);
    // In no commit of the run; in the work tree byte for byte.
    assert.is(git(repo, 'log', '--format=%s', 'main..HEAD', '--', 'README.md', 'notes.txt'), '');
    assert.is(
      git(repo, 'show', 'HEAD~1:src/step1.js'),
      'export const value = 1;\n',
      "the leaf's own write is in its green commit",
    );
    assert.is(readFileSync(join(repo, 'README.md'), 'utf8'), readme);
    assert.is(readFileSync(join(repo, 'notes.txt'), 'utf8'), notes);
    assert.is(git(repo, 'status', '--porcelain'), ' M README.md\n?? notes.txt\n');
    const marks = readEvents(repo).filter((e) => e.event === 'mark' && e.name === 'user-files-left-out');
    assert.equal(
      marks.map((e) => [e.anchor, e.phase, e.paths]),
      [
        ['develop-green', 'green', ['README.md', 'notes.txt']],
        ['develop-refactor', 'refactor', ['README.md', 'notes.txt']],
      ],
    );
    assert.ok(
      lines.some(
        (l) =>
          l.startsWith(
            'README.md, notes.txt: changed in the work tree while develop-green ran or after it, but not by the leaf',
          ) && l.endsWith('left out of the green commit and kept in the work tree as they are'),
      ),
      lines.join('\n'),
    );
  },
);

users("a relaunched leaf: the user's files written as it waited stay as they are, out of its attempt", async () => {
  const repo = makeProject();
  writeFileSync(join(repo, 'README.md'), '# slug\n');
  git(repo, 'add', 'README.md');
  git(repo, 'commit', '-qm', 'readme');
  // The first develop-red writes half its work, then spins on a CPU (not idle) until DIR/go, then waits on DIR/idle
  // (never opened) until the idle limit kills it: the user writes while it spins, so the limit can be short. Sandboxed,
  // a write meanwhile is told from the leaf's by its copy, not by timing. The relaunch writes down what it finds, then
  // the test.
  const agents = agentsRunning(`  red)
    if [ ! -e "$1/waiting" ]; then echo 'half a thought' > src/half.js; touch "$1/waiting"
      while [ ! -e "$1/go" ]; do :; done; read -r _ < "$1/idle"; fi
    { cat README.md notes.txt; ls src; } > "$1/seen" 2>&1
    ${RED} ;;
  green) echo 'export const value = 1;' > src/step1.js ;;
  refactor) printf '%s\\n' '// the one value' 'export const value = 1;' > src/step1.js ;;`);
  execFileSync('mkfifo', [join(agents.dir, 'idle')]);
  const lines: string[] = [];
  const env = cleanEnv({ VERI_IDLE_TIMEOUT: '1', VERI_KILL_AFTER: '0.1' });
  const running = runTdd(oneStepRun(repo, agents.file, { env, progress: (l: string) => lines.push(l) }));
  const readme = '# slug\n\nThe user\'s own words, "quoted", $HOME, ü.\n';
  const notes = 'notes the user keeps beside the code\n';
  try {
    await waitFor(() => existsSync(join(agents.dir, 'waiting')), 60_000, 'the red leaf spins');
    writeFileSync(join(repo, 'README.md'), readme);
    writeFileSync(join(repo, 'notes.txt'), notes);
    assert.not.ok(existsSync(join(repo, '.tdd', 'develop-red.exit')), 'the user wrote while the leaf still waited');
  } finally {
    writeFileSync(join(agents.dir, 'go'), '');
  }
  const result = await running;
  assert.is(result.code, 0, JSON.stringify(result.bail));
  const title = 'Lowercase and join with dashes';
  assert.equal(subjects(repo), ['plan: issue 1', `red: ${title}`, `green: ${title}`, `refactor: ${title}`]);
  assert.equal(
    readEvents(repo)
      .filter((e) => e.event === 'exit')
      .map((e) => `${e.leaf} ${e.status}`)
      .slice(0, 2),
    ['develop-red killed-stuck', 'develop-red exited'],
  );
  // Right after the restore (the relaunch saw it): the user's bytes, and no half-done file.
  assert.is(readFileSync(join(agents.dir, 'seen'), 'utf8'), `${readme}${notes}slug.js\n`);
  // The attempt holds the leaf's half-done file and nothing of the user's.
  const ref = git(repo, 'for-each-ref', '--format=%(refname)', 'refs/leap/attempts/').trim();
  assert.match(ref, /^refs\/leap\/attempts\/issue-1\/step-1-[0-9TZ]+$/);
  assert.is(git(repo, 'diff', '--name-only', `${ref}~1`, ref), 'src/half.js\n');
  assert.is(git(repo, 'show', `${ref}:src/half.js`), 'half a thought\n');
  assert.not.ok(git(repo, 'ls-tree', '-r', '--name-only', ref).split('\n').includes('notes.txt'));
  assert.is(git(repo, 'show', `${ref}:README.md`), '# slug\n', "README.md in the attempt is HEAD's");
  // In no commit of the run; in the work tree byte for byte; the half-done file nowhere.
  assert.is(git(repo, 'log', '--format=%s', 'main..HEAD', '--', 'README.md', 'notes.txt', 'src/half.js'), '');
  assert.is(readFileSync(join(repo, 'README.md'), 'utf8'), readme);
  assert.is(readFileSync(join(repo, 'notes.txt'), 'utf8'), notes);
  assert.is(git(repo, 'status', '--porcelain'), ' M README.md\n?? notes.txt\n');
  const marks = readEvents(repo).filter((e) => e.event === 'mark' && e.name === 'user-files-left-out');
  const leaves = ['develop-red', 'develop-red', 'develop-green', 'develop-refactor'];
  assert.equal(
    marks.map((e) => [e.anchor, e.phase, e.paths]),
    leaves.map((l) => [l, l.slice(8), ['README.md', 'notes.txt']]),
  );
  const said = [
    'README.md, notes.txt: changed in the work tree while develop-red ran or after it, but not by the leaf',
    "(yours, or another program's): left out of the unfinished leaf's attempt and kept in the work tree as they are",
  ].join(' ');
  const at = lines.indexOf(said);
  assert.ok(at >= 0, lines.join('\n'));
  assert.is(lines[at + 1], `the unfinished leaf's work is kept in ${ref}`);
});

users.run();
