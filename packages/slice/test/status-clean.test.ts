import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { slicePaths, type LeapError } from '@leap/core';
import { cleanupTempDirs, git, isAlive, makeGitRepo, makeTempDir, waitFor } from '@leap/test-utils';
import { lockSlice, liveEngine, sliceLockFile } from '../src/slice-lock.js';
import { cleanSlice, gitStdout, mayHaveSliceWorktrees, reapSlice, sliceWorktrees } from '../src/reap.js';
import { sliceStatus } from '../src/definition/slice-status.js';
import type { Slice } from '../src/definition/index.js';
import { ballCommand } from '../src/cli.js';
import { leapSlice } from './engine-helpers.js';

const pkg = fileURLToPath(new URL('..', import.meta.url));
const children: ChildProcess[] = [];

/** A real process that takes the slice's engine lock and holds it until killed, as an engine does. */
async function startHolder(repo: string, id: string): Promise<ChildProcess> {
  const script = join(makeTempDir(), 'hold.mts');
  writeFileSync(
    script,
    `import { lockSlice } from ${JSON.stringify(join(pkg, 'src', 'slice-lock.ts'))};\nlockSlice(process.argv[2], process.argv[3]);\nprocess.stdout.write('locked\\n');\nsetInterval(() => {}, 1000);\n`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', script, repo, id], {
    cwd: pkg,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  assert.ok(await waitFor(() => out.includes('locked'), 20000), 'the holder took the lock');
  return child;
}

async function kill9(child: ChildProcess): Promise<void> {
  child.kill('SIGKILL');
  await waitFor(() => child.pid !== undefined && !isAlive(child.pid), 5000);
}

function cleanup(): void {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  cleanupTempDirs();
}

/** A repository with `.leap/` ignored, and worktrees on branches `leap/ID/BALL` wherever asked. */
function repoWithWorktrees(id: string, balls: string[], where: (ball: string) => string): string {
  const repo = makeGitRepo({ files: { '.gitignore': '.leap/\n', 'a.js': 'a\n' } });
  for (const ball of balls) git(repo, 'worktree', 'add', '-q', '-b', `leap/${id}/${ball}`, where(ball));
  return repo;
}

function worktreeList(repo: string): string[] {
  return git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length));
}

function sliceOf(deps: Record<string, string[]>, id = 's'): Slice {
  return {
    id,
    base: 'HEAD',
    spine: 'integrator',
    balls: Object.entries(deps).map(([b, d]) => ({
      id: b,
      goal: 'g',
      spec: '',
      scope: [{ path: `${b}.js`, sha256: null }],
      proof: { argv: ['true'] },
      rollback: '',
      deps: d,
    })),
  };
}

// ---

const lock = suite('lockSlice');

lock.after.each(cleanup);

lock(
  "one live engine per slice: a second lock names the live holder; a SIGKILLed holder's lock is taken over",
  async () => {
    const repo = makeGitRepo();
    const holder = await startHolder(repo, 's');
    assert.is(liveEngine(repo, 's'), holder.pid);
    assert.throws(
      () => lockSlice(repo, 's'),
      (e: LeapError) =>
        e.exitCode === 2 &&
        e.message ===
          `slice "s" is being run by live process ${holder.pid} (${sliceLockFile(repo, 's')}); wait for it to end or stop it`,
    );
    const other = lockSlice(repo, 'other');
    other.release();
    await kill9(holder);
    assert.is(liveEngine(repo, 's'), null);
    const mine = lockSlice(repo, 's');
    assert.is(liveEngine(repo, 's'), process.pid);
    assert.throws(() => lockSlice(repo, 's'), new RegExp(`live process ${process.pid}`));
    mine.release();
    assert.not.ok(existsSync(sliceLockFile(repo, 's')));
    assert.is(liveEngine(repo, 's'), null);
  },
);

lock.run();

// ---

const reap = suite('reapSlice');

reap.after.each(cleanup);

reap('removes every worktree on leap/SLICE/*, wherever it is, and only those', () => {
  const outside = makeTempDir();
  let repo = '';
  repo = repoWithWorktrees('s', ['a', 'b'], (b) =>
    b === 'a' ? join(outside, "wt a $(x) 'q'\nline") : join(repo || outside, 'never'),
  );
  // Another slice's worktree, a worktree inside .leap/, and one on a branch of someone else.
  git(repo, 'worktree', 'add', '-q', '-b', 'leap/s/c', join(repo, '.leap', 'worktrees', 'c'));
  git(repo, 'worktree', 'add', '-q', '-b', 'leap/s2/a', join(outside, 's2-a'));
  git(repo, 'worktree', 'add', '-q', '-b', 'feature', join(outside, 'feature'));
  // A worktree whose folder is already gone.
  rmSync(join(outside, 'never'), { recursive: true, force: true });
  assert.ok(mayHaveSliceWorktrees(repo, 's'));
  assert.equal(
    sliceWorktrees(repo, 's')
      .map((w) => w.branch)
      .sort(),
    ['leap/s/a', 'leap/s/b', 'leap/s/c'],
  );
  const removed = reapSlice(repo, 's');
  assert.equal(
    removed.sort(),
    [join(outside, "wt a $(x) 'q'\nline"), join(outside, 'never'), join(repo, '.leap', 'worktrees', 'c')].sort(),
  );
  assert.equal(worktreeList(repo).sort(), [repo, join(outside, 's2-a'), join(outside, 'feature')].sort());
  assert.not.ok(mayHaveSliceWorktrees(repo, 's'));
  assert.equal(reapSlice(repo, 's'), []);
  // Branches stay until `leap slice clean`.
  assert.match(git(repo, 'branch', '--list', 'leap/s/*'), /leap\/s\/a[\s\S]*leap\/s\/b[\s\S]*leap\/s\/c/);
});

reap(
  "a worktree cut off while git added it (git's placeholder HEAD, its initializing lock) is the slice's by where it lies, and removed",
  () => {
    const repo = makeGitRepo();
    const half = slicePaths(repo, 's').worktree('spine');
    // The repository's folder of worktrees lies outside it (in the user's state folder): gone whatever the end.
    const folder = dirname(slicePaths(repo, 's').worktrees);
    try {
      git(repo, 'worktree', 'add', '-q', '-b', 'leap/s/spine', half);
      // What a SIGKILL between `git worktree add`'s first files and its symbolic-ref leaves: a zero HEAD, locked.
      const admin = join(repo, '.git', 'worktrees', 'spine');
      writeFileSync(join(admin, 'HEAD'), `${'0'.repeat(40)}\n`);
      writeFileSync(join(admin, 'locked'), 'initializing');
      // Another slice's half-made worktree, and someone's detached one, are not this slice's.
      const other = slicePaths(repo, 's2').worktree('spine');
      git(repo, 'worktree', 'add', '-q', '--detach', other);
      const mine = join(makeTempDir(), 'detached');
      git(repo, 'worktree', 'add', '-q', '--detach', mine);
      assert.ok(mayHaveSliceWorktrees(repo, 's'), 'a placeholder HEAD is a maybe');
      assert.equal(sliceWorktrees(repo, 's'), [{ path: half, branch: null }]);
      assert.equal(reapSlice(repo, 's'), [half]);
      assert.not.ok(existsSync(half));
      assert.not.ok(existsSync(slicePaths(repo, 's').worktrees), "the slice's emptied folder goes too");
      assert.equal(worktreeList(repo).sort(), [repo, other, mine].sort());
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  },
);

reap("a live engine's worktrees are left alone; once it is SIGKILLed, the next reap removes them", async () => {
  const outside = makeTempDir();
  const repo = repoWithWorktrees('s', ['a'], (b) => join(outside, b));
  const holder = await startHolder(repo, 's');
  assert.equal(reapSlice(repo, 's'), []);
  assert.ok(existsSync(join(outside, 'a')));
  await kill9(holder);
  assert.equal(reapSlice(repo, 's'), [join(outside, 'a')]);
  assert.equal(worktreeList(repo), [repo]);
});

reap("the engine itself, holding the lock, reaps; outside a repository git's error is said", () => {
  const outside = makeTempDir();
  const repo = repoWithWorktrees('s', ['a'], (b) => join(outside, b));
  const mine = lockSlice(repo, 's');
  try {
    assert.equal(reapSlice(repo, 's'), [join(outside, 'a')]);
  } finally {
    mine.release();
  }
  assert.throws(
    () => gitStdout(makeTempDir(), ['worktree', 'list']),
    /git worktree list failed \(exit 128\) in .*: fatal: not a git repository/,
  );
});

reap("from a linked worktree, git's common folder is found", () => {
  const outside = makeTempDir();
  const repo = repoWithWorktrees('s', ['a'], (b) => join(outside, b));
  git(repo, 'worktree', 'add', '-q', '-b', 'side', join(outside, 'side'));
  assert.ok(mayHaveSliceWorktrees(join(outside, 'side'), 's'));
  assert.not.ok(mayHaveSliceWorktrees(join(outside, 'side'), 'other'));
  assert.ok(mayHaveSliceWorktrees(makeTempDir(), 's'), 'unsure outside a repository: git is asked');
});

reap('leap slice validate and plan, like every leap slice command, remove what a dead engine left', async () => {
  const outside = makeTempDir();
  const repo = repoWithWorktrees('s', ['a', 'b'], (b) => join(outside, b));
  writeFileSync(join(repo, 's.json'), JSON.stringify(sliceOf({ a: [], b: ['a'] })));
  git(repo, 'worktree', 'add', '-q', '-b', 'other', join(outside, 'other'));
  assert.is((await leapSlice(repo, ['validate', 's.json'])).code, 0);
  assert.equal(worktreeList(repo).sort(), [repo, join(outside, 'other')].sort());
  git(repo, 'worktree', 'add', '-q', join(outside, 'again'), 'leap/s/a');
  assert.is((await leapSlice(repo, ['plan', 's.json'])).code, 0);
  assert.equal(worktreeList(repo).sort(), [repo, join(outside, 'other')].sort());
});

reap("run inside a ball's worktree, the commands respect the main repository's lock and read its records", async () => {
  const outside = makeTempDir();
  const repo = repoWithWorktrees('s', ['a', 'b'], (b) => join(outside, b));
  const wt = join(outside, 'b');
  const slice = sliceOf({ a: [], b: ['a'] });
  writeFileSync(join(wt, 's.json'), JSON.stringify(slice));
  const holder = await startHolder(repo, 's');
  assert.is((await leapSlice(wt, ['validate', 's.json'])).code, 0);
  assert.is((await leapSlice(wt, ['plan', 's.json'])).code, 0);
  assert.match(
    (await leapSlice(wt, ['status', 's.json'])).stdout,
    new RegExp(`^slice s: engine running \\(pid ${holder.pid}\\)`),
  );
  assert.equal(reapSlice(wt, 's'), []);
  assert.equal(worktreeList(repo).sort(), [repo, join(outside, 'a'), wt].sort());
  // The receipts a check reads are the main repository's, the files it hashes the worktree's.
  mkdirSync(join(repo, '.leap', 's', 'a'), { recursive: true });
  writeFileSync(join(repo, '.leap', 's', 'a', 'result.json'), JSON.stringify({ receipt: 1 }));
  let out = '';
  const io = {
    stdout: (t: string) => {
      out += t;
    },
    stderr: () => {},
    cwd: wt,
    env: process.env,
    isTTY: false,
  };
  assert.is(await ballCommand(['check', 's.json', 'b'], io), 0);
  assert.match(out, /receipt 1 \(a true map\)/);
  await kill9(holder);
  assert.equal(reapSlice(wt, 's').sort(), [join(outside, 'a'), wt].sort());
  assert.equal(worktreeList(repo), [repo]);
});

reap("the main working tree is never reaped, even on one of the slice's branches", async () => {
  const outside = makeTempDir();
  const repo = repoWithWorktrees('s', ['a'], (b) => join(outside, b));
  git(repo, 'checkout', '-q', '-b', 'leap/s/spine');
  writeFileSync(join(repo, 's.json'), JSON.stringify(sliceOf({ a: [] })));
  assert.equal(reapSlice(repo, 's'), [join(outside, 'a')]);
  assert.equal(worktreeList(repo), [repo]);
  assert.is((await leapSlice(repo, ['status', 's.json'])).code, 0);
  assert.is(git(repo, 'branch', '--show-current').trim(), 'leap/s/spine');
});

reap.run();

// ---

const clean = suite('cleanSlice and leap slice clean');

clean.after.each(cleanup);

clean('worktrees first, then the branches of the slice; records and other branches stay', async () => {
  const outside = makeTempDir();
  const repo = repoWithWorktrees('s', ['a', 'b'], (b) => join(outside, b));
  git(repo, 'branch', 'leap/s/spine');
  git(repo, 'branch', 'leap/s2/a');
  git(repo, 'branch', 'leap/sx');
  mkdirSync(join(repo, '.leap', 's', 'a'), { recursive: true });
  writeFileSync(join(repo, '.leap', 's', 'a', 'result.json'), '{"receipt":1}');
  writeFileSync(join(repo, 's.json'), JSON.stringify(sliceOf({ a: [], b: [] })));
  assert.equal(await leapSlice(repo, ['clean', 's.json']), {
    code: 0,
    stdout: `removed the worktree ${join(outside, 'a')}\nremoved the worktree ${join(outside, 'b')}\ndeleted the branch leap/s/a\ndeleted the branch leap/s/b\ndeleted the branch leap/s/spine\nslice s: 2 worktrees and 3 branches removed; records under .leap/s/ kept\n`,
    stderr: '',
  });
  assert.equal(worktreeList(repo), [repo]);
  assert.equal(git(repo, 'branch', '--format=%(refname:short)').trim().split('\n').sort(), [
    'leap/s2/a',
    'leap/sx',
    'main',
  ]);
  assert.ok(existsSync(join(repo, '.leap', 's', 'a', 'result.json')));
  assert.equal(JSON.parse((await leapSlice(repo, ['clean', 's.json', '--json'])).stdout), {
    slice: 's',
    worktrees: [],
    branches: [],
    kept: [],
  });
});

clean(
  'refused while a live engine runs the slice; a slice edited into an invalid one is still cleaned by its id',
  async () => {
    const outside = makeTempDir();
    const repo = repoWithWorktrees('s', ['a'], (b) => join(outside, b));
    writeFileSync(join(repo, 's.json'), JSON.stringify({ id: 's', balls: 'edited since' }));
    const holder = await startHolder(repo, 's');
    assert.equal(await leapSlice(repo, ['clean', 's.json']), {
      code: 2,
      stdout: '',
      stderr: `leap: slice "s" is being run by live process ${holder.pid}: clean it once that run ends\n`,
    });
    assert.ok(existsSync(join(outside, 'a')));
    await kill9(holder);
    assert.equal(cleanSlice(repo, 's'), { worktrees: [join(outside, 'a')], branches: ['leap/s/a'], kept: [] });
  },
);

clean('a branch of the slice the main working tree has checked out is kept, and said', async () => {
  const repo = repoWithWorktrees('s', [], () => '');
  git(repo, 'branch', 'leap/s/a');
  git(repo, 'checkout', '-q', '-b', 'leap/s/spine');
  writeFileSync(join(repo, 's.json'), JSON.stringify(sliceOf({ a: [] })));
  const out = await leapSlice(repo, ['clean', 's.json']);
  assert.equal(out, {
    code: 0,
    stdout:
      'deleted the branch leap/s/a\nkept the branch leap/s/spine: it is checked out in the main working tree\nslice s: 0 worktrees and 1 branch removed; records under .leap/s/ kept\n',
    stderr: '',
  });
  assert.is(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'leap/s/spine');
});

clean('bad input: no id, malformed JSON, a missing file, not a repository, no FILE', async () => {
  const repo = makeGitRepo();
  writeFileSync(join(repo, 'noid.json'), '{"balls": []}');
  writeFileSync(join(repo, 'bad.json'), '{');
  assert.equal(await leapSlice(repo, ['clean', 'noid.json']), {
    code: 2,
    stdout: '',
    stderr: `leap: ${join(repo, 'noid.json')}: id: expected the slice's id, found nothing\n`,
  });
  assert.equal(await leapSlice(repo, ['clean', 'bad.json']), {
    code: 2,
    stdout: '',
    stderr: `leap: ${join(repo, 'bad.json')}: 1:2: malformed JSON: Expected property name or '}'\n`,
  });
  assert.match(
    (await leapSlice(repo, ['clean', 'none.json'])).stderr,
    /none\.json: cannot read the slice file: ENOENT/,
  );
  const dir = makeTempDir();
  writeFileSync(join(dir, 's.json'), '{"id": "s"}');
  assert.match((await leapSlice(dir, ['clean', 's.json'])).stderr, /is not inside a git repository/);
  assert.is((await leapSlice(repo, ['clean'])).code, 2);
  assert.match((await leapSlice(repo, ['clean', '--help'])).stdout, /records under \.leap\/SLICE\/ stay/);
});

clean.run();

// ---

const status = suite('sliceStatus and leap slice status');

status.after.each(cleanup);

function record(repo: string, path: string, value: unknown): void {
  const file = join(repo, '.leap', 's', path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
}

const CANDIDATE = 'c'.repeat(64);

function recordedRepo(): string {
  const repo = makeGitRepo({ files: { '.gitignore': '.leap/\ns.json\n' } });
  writeFileSync(
    join(repo, 's.json'),
    JSON.stringify(sliceOf({ a: [], b: [], c: ['b'], d: [], e: [], f: ['d'], g: [], h: ['a'] })),
  );
  record(repo, 'run.json', { slice: 's', base: 'f'.repeat(40), file: 's.json', started: '2026-01-01T00:00:00.000Z' });
  record(repo, 'a/round-1.json', {
    slice: 's',
    ball: 'a',
    round: 1,
    receipt: null,
    reason: 'the proof failed',
    candidate: null,
    proof: { code: 1, metric: null },
    changed: ['a.js'],
    ts: 'x',
  });
  record(repo, 'a/round-2.json', {
    slice: 's',
    ball: 'a',
    round: 2,
    receipt: 1,
    reason: 'passed',
    candidate: CANDIDATE,
    proof: { code: 0, metric: null },
    changed: ['a.js'],
    ts: 'x',
  });
  record(repo, 'a/result.json', {
    receipt: 1,
    reason: 'proven, kept, judged',
    candidate: CANDIDATE,
    rounds: 2,
    merged: 'e'.repeat(40),
    ts: 'x',
  });
  record(repo, 'b/round-1.json', {
    slice: 's',
    ball: 'b',
    round: 1,
    receipt: -1,
    reason: 'edited x.js, outside its scope',
    candidate: null,
    proof: { code: 0, metric: null },
    changed: ['x.js'],
    ts: 'x',
  });
  record(repo, 'b/result.json', {
    receipt: -1,
    reason: 'edited x.js, outside its scope',
    candidate: null,
    rounds: 1,
    merged: null,
    ts: 'x',
  });
  for (let n = 1; n <= 4; n++)
    record(repo, `d/round-${n}.json`, {
      slice: 's',
      ball: 'd',
      round: n,
      receipt: n === 4 ? 0 : null,
      reason: 'the proof failed',
      candidate: null,
      proof: { code: 1, metric: null },
      changed: [],
      ts: 'x',
    });
  record(repo, 'd/result.json', {
    receipt: 0,
    reason: 'four rounds without a passing proof',
    candidate: null,
    rounds: 4,
    merged: null,
    ts: 'x',
  });
  record(repo, 'd/checkpoint.md', '# checkpoint\n');
  record(repo, 'e/round-1.json', {
    slice: 's',
    ball: 'e',
    round: 1,
    receipt: null,
    reason: 'the proof failed',
    candidate: null,
    proof: { code: 1, metric: null },
    changed: [],
    ts: 'x',
  });
  record(repo, 'g/result.json', '{"receipt": 1, "torn');
  return repo;
}

status(
  "each ball's state from its records: passed, refused, blocked, held, interrupted, waiting, pending; torn records said",
  async () => {
    const repo = recordedRepo();
    const s = sliceStatus(repo, sliceOf({ a: [], b: [], c: ['b'], d: [], e: [], f: ['d'], g: [], h: ['a'] }));
    assert.equal(
      s.balls.map((b) => [b.ball, b.state, b.receipt, b.rounds, b.after]),
      [
        ['a', 'passed', 1, 2, []],
        ['b', 'refused', -1, 1, []],
        ['c', 'blocked', null, 0, ['b']],
        ['d', 'held', 0, 4, []],
        ['e', 'interrupted', null, 1, []],
        ['f', 'waiting', null, 0, ['d']],
        ['g', 'pending', null, 0, []],
        ['h', 'pending', null, 0, []],
      ],
    );
    assert.equal([s.base, s.engine, s.record], ['f'.repeat(40), null, null]);
    assert.is(s.unreadable.length, 1);
    assert.match(s.unreadable[0] ?? '', /^\.leap\/s\/g\/result\.json: /);
    const out = await leapSlice(repo, ['status', 's.json']);
    assert.is(out.code, 0);
    assert.is(
      out.stdout,
      [
        `slice s: no engine running, base ${'f'.repeat(40)}`,
        `  a  passed       round 2  receipt 1  candidate cccccccccccc  merged eeeeeeeeeeee`,
        '     "proven, kept, judged"',
        '  b  refused      round 1  receipt -1',
        '     "edited x.js, outside its scope"',
        '  c  blocked      after b',
        '  d  held         round 4  receipt 0  checkpoint .leap/s/d/checkpoint.md',
        '     "four rounds without a passing proof"',
        '  e  interrupted  round 1  last round proof failed',
        '     "the proof failed"',
        '  f  waiting      after d',
        '  g  pending',
        '  h  pending',
        `unreadable record ${s.unreadable[0]}`,
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await leapSlice(repo, ['status', 's.json', '--json'])).stdout) as {
      balls: { ball: string; state: string; checkpoint: string | null }[];
      reaped: string[];
    };
    assert.equal(json.balls.find((b) => b.ball === 'd')?.checkpoint, '.leap/s/d/checkpoint.md');
    assert.equal(json.reaped, []);
  },
);

status('balls the engine never built, because a dependency refused or held, are blocked or held after it', async () => {
  const repo = recordedRepo();
  record(repo, 'c/result.json', {
    receipt: 0,
    reason: 'blocked: dependency b refused (-1)',
    candidate: null,
    rounds: 0,
    merged: null,
    ts: 'x',
    commit: null,
    blockedBy: ['b'],
  });
  record(repo, 'h/result.json', {
    receipt: 0,
    reason: 'blocked: dependency c',
    candidate: null,
    rounds: 0,
    merged: null,
    ts: 'x',
    commit: null,
    blockedBy: ['c'],
  });
  record(repo, 'f/result.json', {
    receipt: 0,
    reason: 'held: dependency d held (0)',
    candidate: null,
    rounds: 0,
    merged: null,
    ts: 'x',
    commit: null,
    blockedBy: ['d'],
  });
  record(repo, 'f/checkpoint.md', '# checkpoint\n');
  const s = sliceStatus(repo, sliceOf({ a: [], b: [], c: ['b'], d: [], e: [], f: ['d'], g: [], h: ['c'] }));
  assert.equal(
    s.balls
      .filter((b) => ['c', 'f', 'h'].includes(b.ball))
      .map((b) => [b.ball, b.state, b.receipt, b.after, b.checkpoint]),
    [
      ['c', 'blocked', 0, ['b'], null],
      ['f', 'held', 0, ['d'], '.leap/s/f/checkpoint.md'],
      ['h', 'blocked', 0, ['c'], null],
    ],
  );
});

status('a slice never run: every ball pending or waiting; a passed slice names its record', async () => {
  const repo = makeGitRepo({ files: { '.gitignore': '.leap/\ns.json\n' } });
  writeFileSync(join(repo, 's.json'), JSON.stringify(sliceOf({ a: [], b: ['a'] })));
  assert.equal(await leapSlice(repo, ['status', 's.json']), {
    code: 0,
    stdout: 'slice s: no engine running, base (not run yet)\n  a  pending\n  b  waiting      after a\n',
    stderr: '',
  });
  assert.not.ok(existsSync(join(repo, '.leap')), 'status writes nothing');
  record(repo, 'a/result.json', { receipt: 1 });
  record(repo, 'b/result.json', { receipt: 1 });
  record(repo, 'record.json', {});
  assert.match(
    (await leapSlice(repo, ['status', 's.json'])).stdout,
    /^slice s: no engine running, base \(not run yet\), passed \(record \.leap\/s\/record\.json\)\n/,
  );
});

status(
  'while an engine runs: running balls and its pid; after a SIGKILL, status removes the worktrees it left',
  async () => {
    const outside = makeTempDir();
    const repo = repoWithWorktrees('s', ['e'], (b) => join(outside, b));
    writeFileSync(join(repo, 's.json'), JSON.stringify(sliceOf({ e: [] })));
    record(repo, 'e/round-1.json', { round: 1, receipt: null, reason: 'the proof failed' });
    const holder = await startHolder(repo, 's');
    const live = await leapSlice(repo, ['status', 's.json']);
    assert.is(
      live.stdout,
      `slice s: engine running (pid ${holder.pid}), base (not run yet)\n  e  running      round 1  last round proof failed\n     "the proof failed"\n`,
    );
    assert.ok(existsSync(join(outside, 'e')));
    await kill9(holder);
    const after = await leapSlice(repo, ['status', 's.json']);
    assert.is(
      after.stdout,
      `slice s: no engine running, base (not run yet)\n  e  interrupted  round 1  last round proof failed\n     "the proof failed"\nremoved the worktree ${join(outside, 'e')}, left by an engine that ended\n`,
    );
    assert.equal(worktreeList(repo), [repo]);
  },
);

status('bad input: an invalid slice, no FILE, not a repository', async () => {
  const repo = makeGitRepo();
  writeFileSync(join(repo, 's.json'), JSON.stringify({ ...sliceOf({ a: [] }), spine: 'zz' }));
  assert.equal(await leapSlice(repo, ['status', 's.json']), {
    code: 2,
    stdout: '',
    stderr: `leap: ${join(repo, 's.json')}: spine "zz" is neither "integrator" nor a ball of this slice\n`,
  });
  assert.is((await leapSlice(repo, ['status'])).code, 2);
  const dir = makeTempDir();
  writeFileSync(join(dir, 's.json'), JSON.stringify(sliceOf({ a: [] })));
  assert.match((await leapSlice(dir, ['status', 's.json'])).stderr, /is not inside a git repository/);
  assert.match((await leapSlice(repo, ['status', '--help'])).stdout, /^Usage: leap slice status FILE \[--json\]/);
});

status.run();
