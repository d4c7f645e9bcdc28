import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir, sourceCoverage, waitFor } from '@leap/test-utils';
import {
  BASE_DIFF_LIMIT,
  checkGroundTruth,
  findStepTests,
  readBaseDiff,
  runSuite,
  topLevelName,
  withScratchTree,
} from '../src/index.js';
import type { Phase } from '../src/index.js';
import { TEST_CMD, fixtures, makeGreen, makeRedRepo, verifyEnv } from './helpers.js';

function truth(
  repo: string,
  phase: Phase,
  extra: { testCmd?: string; base?: string; tests?: ReturnType<typeof findStepTests>; head?: string } = {},
) {
  const tests =
    extra.tests ??
    findStepTests({
      phase,
      repo,
      step: 'greet returns hello',
      issue: 3,
      eventsFile: join(repo, '.tdd', 'events.jsonl'),
    });
  return checkGroundTruth({
    phase,
    repo,
    stateDir: join(repo, '.tdd'),
    testCmd: extra.testCmd ?? TEST_CMD,
    tests,
    base: extra.base,
    env: verifyEnv(),
    head: extra.head,
  });
}

// The same verdict whether HEAD is known (one git status) or not (a diff and a listing).
async function truthBothWays(
  repo: string,
  phase: Phase,
  extra: { base?: string; tests: ReturnType<typeof findStepTests> },
) {
  const unknown = await truth(repo, phase, extra);
  assert.equal(await truth(repo, phase, { ...extra, head: git(repo, 'rev-parse', 'HEAD').trim() }), unknown);
  return unknown;
}

function worktrees(repo: string): number {
  return git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree ')).length;
}

const check = suite('checkGroundTruth');
check.after.each(cleanupTempDirs);

check(
  'every suite run is a suite event: the tree it ran on (the work tree as it was, not the state folder), the command, the exit code; the index untouched',
  async () => {
    const repo = makeRedRepo();
    const events = join(repo, '.tdd', 'events.jsonl');
    const suites = () =>
      existsSync(events)
        ? readFileSync(events, 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as Record<string, unknown>)
            .filter((e) => e.event === 'suite')
        : [];
    const before = suites().length;
    const red = await truth(repo, 'red');
    assert.ok(red.ok, red.reason);
    const redRuns = suites().slice(before);
    assert.equal(
      redRuns.map((e) => [e.command, e.phase, e.code === 0]),
      [
        [TEST_CMD, 'red', false],
        [TEST_CMD, 'red', true],
      ],
      'with the new tests (fails), then the copy without them (passes)',
    );
    assert.is(
      redRuns[0]?.tree,
      git(repo, 'rev-parse', 'HEAD^{tree}').trim(),
      "the red commit's tree: the work tree is clean, the state folder left out",
    );
    assert.is.not(redRuns[1]?.tree, redRuns[0]?.tree, 'the copy without the new tests is another tree');
    assert.ok(redRuns.every((e) => typeof e.duration_ms === 'number' && e.duration_ms >= 0));
    // Green: the work tree as it is, an untracked file included; the user's index as it was.
    makeGreen(repo);
    writeFileSync(join(repo, 'notes.txt'), "it's $(id) `x` ✓\n");
    const index = git(repo, 'ls-files', '--stage');
    const green = await truth(repo, 'green');
    assert.ok(green.ok, green.reason);
    // The green's counted run, and its canary runs in a copy (`suite` events of purpose `canary`, failing): the step's
    // tests are every test file here, and the command stops at the first failing one, so the second's canary, not named
    // in that output, runs again alone.
    const greenRuns = suites().slice(before + 2);
    assert.equal(
      greenRuns.map((e) => `${e.phase} ${e.purpose ?? 'counted'} ${e.code === 0 ? 'passed' : 'failed'}`).sort(),
      ['green canary failed', 'green canary failed', 'green counted passed'],
    );
    const greenRun = greenRuns.find((e) => e.purpose === undefined);
    assert.equal([greenRun?.phase, greenRun?.code], ['green', 0]);
    const files = git(repo, 'ls-tree', '-r', '--name-only', String(greenRun?.tree)).trim().split('\n');
    assert.ok(files.includes('notes.txt') && files.includes('test/greet.test.js'), files.join(' '));
    assert.not.ok(
      files.some((f) => f.startsWith('.tdd/')),
      'the state folder is not part of the tree',
    );
    assert.is(
      git(repo, 'show', `${String(greenRun?.tree)}:notes.txt`),
      "it's $(id) `x` ✓\n",
      'the untracked file as it was',
    );
    assert.is(git(repo, 'ls-files', '--stage'), index, "the repository's own index is untouched");
  },
);

check(
  'red passes when the suite fails and passes with the new tests set aside; the user tree is untouched',
  async () => {
    const repo = makeRedRepo();
    writeFileSync(join(repo, 'untracked.txt'), 'mine\n');
    const status = git(repo, 'status', '--porcelain');
    const result = await truth(repo, 'red');
    assert.equal(result, {
      ok: true,
      reason: 'the suite fails with the new tests and passes without them (test/greet.test.js)',
    });
    assert.is(git(repo, 'status', '--porcelain'), status);
    assert.ok(existsSync(join(repo, 'test', 'greet.test.js')));
    assert.is(worktrees(repo), 1, 'no worktree is made');
  },
);

check('red rejects a suite that passes, a suite broken without the new tests, and a commit with no test', async () => {
  const repo = makeRedRepo();
  makeGreen(repo);
  const passing = await truth(repo, 'red', {
    tests: { files: ['test/greet.test.js'], source: 'tests-option', redCommit: null },
  });
  assert.equal(passing, {
    ok: false,
    reason: 'ground truth: the suite passes with the new tests; a red test must fail',
  });
  const broken = makeRedRepo();
  const brokenResult = await truth(broken, 'red', { testCmd: `${TEST_CMD}; exit 3` });
  assert.is(brokenResult.ok, false);
  assert.match(
    brokenResult.reason,
    /ground truth: the suite still fails with the new test files set aside \(test\/greet\.test\.js\)/,
  );
  const none = await truth(repo, 'red');
  assert.equal(none, { ok: false, reason: 'ground truth: the red commit (HEAD) adds or changes no test file' });
  assert.is(worktrees(broken), 1);
});

check(
  'set aside restores a changed test file from the parent and removes an added one; ignored dependencies are linked in',
  async () => {
    const repo = makeRedRepo();
    makeGreen(repo);
    mkdirSync(join(repo, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'dep', 'index.js'), 'module.exports = 42;\n');
    writeFileSync(
      join(repo, 'test', 'util.test.js'),
      'import { createRequire } from "node:module";\nprocess.exit(createRequire(import.meta.url)("../node_modules/dep/index.js") === 42 ? 1 : 0); // red\n',
    );
    git(repo, 'commit', '-q', '-am', 'red: change util test');
    const log = join(makeTempDir(), 'seen.log');
    // git inside the suite: in the scratch copy it sees the set-aside test as the one change, not the linked node_modules.
    const testCmd = `grep -c red test/util.test.js >> ${log}; ls node_modules/dep >> ${log}; git status --porcelain >> ${log}; ${TEST_CMD}`;
    const result = await truth(repo, 'red', { testCmd });
    assert.is(result.ok, true, result.reason);
    const seen = readFileSync(log, 'utf8');
    assert.is(seen, '1\nindex.js\n0\nindex.js\nM  test/util.test.js\n');
  },
);

check('green: a failing suite names its first five failed tests, byte for byte, and how many more', async () => {
  const repo = makeRedRepo();
  const names = ['a "quoted" $HOME', 'b `tick`', "c it's", 'd é', 'e', 'f', 'g'];
  const out = join(makeTempDir(), 'out.tap');
  writeFileSync(out, names.map((name, i) => `not ok ${i + 1} - ${name}\n`).join(''));
  const testCmd = `cat '${out}'; exit 1`;
  assert.equal(await truth(repo, 'green', { testCmd }), {
    ok: false,
    reason: 'ground truth: the suite fails: a "quoted" $HOME, b `tick`, c it\'s, d é, e, and 2 more',
  });
});

check('green: the suite passes, and the red tests are unchanged since their red commit', async () => {
  const repo = makeRedRepo();
  const red = git(repo, 'rev-parse', 'HEAD').trim();
  assert.equal(await truth(repo, 'green'), { ok: false, reason: 'ground truth: the suite fails' });
  makeGreen(repo);
  const tests = { files: ['test/greet.test.js'], source: 'red-verdict' as const, redCommit: red };
  assert.equal(await truthBothWays(repo, 'green', { tests }), { ok: true, reason: 'the suite passes' });
  writeFileSync(join(repo, 'test', 'greet.test.js'), 'process.exit(0);\n');
  assert.equal(await truthBothWays(repo, 'green', { tests }), {
    ok: false,
    reason: `ground truth: the step's tests changed since their red commit ${red}: test/greet.test.js`,
  });
  git(repo, 'add', '-A');
  assert.equal(await truthBothWays(repo, 'green', { tests }), {
    ok: false,
    reason: `ground truth: the step's tests changed since their red commit ${red}: test/greet.test.js`,
  });
});

check('refactor: no test file changed or added since the base, and the suite passes', async () => {
  const repo = makeRedRepo();
  makeGreen(repo);
  const base = git(repo, 'rev-parse', 'HEAD').trim();
  const tests = { files: ['test/greet.test.js'], source: 'red-verdict' as const, redCommit: null };
  writeFileSync(join(repo, 'src', 'greet.js'), 'const word = "hello";\nexport const greet = () => word;\n');
  assert.equal(await truthBothWays(repo, 'refactor', { base, tests }), {
    ok: true,
    reason: 'the suite passes and no test file changed since the base commit',
  });
  writeFileSync(join(repo, 'test', 'extra.test.js'), 'process.exit(0);\n');
  assert.equal(await truthBothWays(repo, 'refactor', { base, tests }), {
    ok: false,
    reason: `ground truth: test files changed since the base commit ${base}: test/extra.test.js`,
  });
  git(repo, 'add', '-A');
  assert.equal(await truthBothWays(repo, 'refactor', { base, tests }), {
    ok: false,
    reason: `ground truth: test files changed since the base commit ${base}: test/extra.test.js`,
  });
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'sneak a test in');
  assert.match((await truth(repo, 'refactor', { base, tests })).reason, /test\/extra\.test\.js/);
  const later = git(repo, 'rev-parse', 'HEAD').trim();
  writeFileSync(join(repo, 'src', 'greet.js'), 'export const greet = () => "bye";\n');
  assert.equal(await truth(repo, 'refactor', { base: later, tests }), {
    ok: false,
    reason: 'ground truth: the suite fails',
  });
});

check(
  "refactor: a project's test failing once, then passing, is flaky: neither a pass nor the suite failing",
  async () => {
    const repo = makeRedRepo();
    makeGreen(repo);
    const base = git(repo, 'rev-parse', 'HEAD').trim();
    const tests = { files: ['test/greet.test.js'], source: 'red-verdict' as const, redCommit: null };
    const mark = join(makeTempDir(), 'once');
    writeFileSync(mark, '');
    // The project's own test fails in the work tree (never in the canary's copy) while the mark is there.
    const own = `if [ "$(pwd -P)" = '${realpathSync(repo)}' ] && rm '${mark}' 2>/dev/null; then echo 'not ok 1 - util keeps time'; exit 1; fi`;
    const said = 'util keeps time passed once and failed once on the same tree; a flaky test is never ticked';
    const result = await truth(repo, 'refactor', { base, tests, testCmd: `${own}; ${TEST_CMD}` });
    assert.equal(result, { ok: false, reason: `ground truth: flaky: ${said}`, flaky: ['util keeps time'] });
  },
);

check.run();

// ---

const suiteRun = suite('runSuite');
suiteRun.after.each(cleanupTempDirs);

suiteRun('runs the command line with bash in the folder; a signal is 128+N', async () => {
  const dir = makeTempDir();
  assert.is(await runSuite({ testCmd: 'test "$(pwd)" = "$0" && exit 7', env: process.env }, dir).then((c) => c), 1);
  assert.is(await runSuite({ testCmd: `[ "$(pwd)" = "${dir}" ] && exit 7`, env: process.env }, dir), 7);
  assert.is(await runSuite({ testCmd: 'kill -TERM $$', env: process.env }, dir), 143);
  assert.is(await runSuite({ testCmd: 'true', env: process.env }, join(dir, 'missing')), 127);
});

suiteRun.run();

// ---

const scratch = suite('withScratchTree');
scratch.after.each(cleanupTempDirs);

scratch('removes the folder after work, after a throw, and on a signal; the repository is untouched', async () => {
  const repo = makeRedRepo();
  writeFileSync(join(repo, 'src', 'greet.js'), 'export const greet = () => "staged";\n');
  git(repo, 'add', 'src/greet.js');
  const status = git(repo, 'status', '--porcelain');
  const index = readFileSync(join(repo, '.git', 'index'));
  let seen = '';
  await withScratchTree(repo, 'HEAD', ['.tdd'], async (dir) => {
    seen = dir;
    assert.ok(existsSync(join(dir, 'test', 'greet.test.js')));
    assert.not.match(readFileSync(join(dir, 'src', 'greet.js'), 'utf8'), /staged/, "HEAD's tree, not the index");
    assert.not.ok(existsSync(join(dir, '.tdd')), 'the state folder is not linked in');
    // A repository of its own: git inside it sees the commit and a clean tree, and what it commits stays there.
    assert.is(git(dir, 'rev-parse', 'HEAD'), git(repo, 'rev-parse', 'HEAD'));
    assert.is(git(dir, 'rev-parse', '--show-toplevel').trim(), realpathSync(dir));
    assert.is(git(dir, 'status', '--porcelain'), '');
    assert.is(git(dir, 'log', '--format=%s', '-1'), git(repo, 'log', '--format=%s', '-1'));
    writeFileSync(join(dir, 'src', 'greet.js'), 'export const greet = () => "in the copy";\n');
    git(dir, '-c', 'user.name=T', '-c', 'user.email=t@leap.invalid', 'commit', '-q', '-am', 'a commit of the suite');
  });
  assert.not.ok(existsSync(seen));
  assert.is(git(repo, 'status', '--porcelain'), status);
  assert.is(
    git(repo, 'log', '--all', '--format=%s').split('\n').includes('a commit of the suite'),
    false,
    "the copy's commit is not the user's",
  );
  assert.ok(readFileSync(join(repo, '.git', 'index')).equals(index), 'the index is not touched');
  await withScratchTree(repo, 'HEAD', [], async (dir) => {
    seen = dir;
    throw new Error('boom');
  }).then(
    () => assert.unreachable(),
    (e: Error) => assert.is(e.message, 'boom'),
  );
  assert.not.ok(existsSync(seen));
  assert.is(worktrees(repo), 1);
  const child = spawn(process.execPath, ['--import', 'tsx', join(fixtures, 'worktree-hold.ts'), repo], {
    env: { ...process.env, ...sourceCoverage() },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => {
    out += b.toString();
  });
  assert.ok(await waitFor(() => out.includes('\n'), 20000), 'the fixture prints its folder');
  const dir = out.trim();
  assert.ok(existsSync(dir));
  const ended = new Promise<NodeJS.Signals | null>((r) => child.on('close', (_c, s) => r(s)));
  child.kill('SIGTERM');
  assert.is(await ended, 'SIGTERM');
  assert.not.ok(existsSync(dir), 'the folder is gone after SIGTERM');
  assert.is(worktrees(repo), 1);
});

scratch(
  'sets files aside: from the parent, removed when new, and every one of a root commit; a path HEAD lacks is skipped',
  async () => {
    const repo = makeRedRepo();
    const names = ["it's $(x) `y`.test.js", 'ünï "q".test.js'];
    for (const name of names) writeFileSync(join(repo, 'test', name), 'new\n');
    writeFileSync(join(repo, 'test', 'greet.test.js'), 'changed\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'more tests');
    const parent = git(repo, 'show', 'HEAD^:test/greet.test.js');
    const aside = ['test/greet.test.js', ...names.map((n) => `test/${n}`), 'test/never-there.test.js'];
    await withScratchTree(
      repo,
      'HEAD',
      [],
      async (dir) => {
        assert.is(readFileSync(join(dir, 'test', 'greet.test.js'), 'utf8'), parent);
        for (const name of names) assert.not.ok(existsSync(join(dir, 'test', name)), name);
        assert.ok(existsSync(join(dir, 'src', 'greet.js')), 'the rest of the tree stays');
        // git inside the copy sees the set-aside files as changes against the commit, and nothing else.
        assert.is(git(dir, 'status', '--porcelain', '--untracked-files=no').split('\n').filter(Boolean).length, 3);
      },
      aside,
    );
    const root = makeTempDir();
    git(root, 'init', '-q');
    mkdirSync(join(root, 'test'));
    writeFileSync(join(root, 'test', 'a.test.js'), 'a\n');
    writeFileSync(join(root, 'keep.txt'), 'k\n');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'root');
    await withScratchTree(
      root,
      'HEAD',
      [],
      async (dir) => {
        assert.not.ok(existsSync(join(dir, 'test', 'a.test.js')));
        assert.ok(existsSync(join(dir, 'keep.txt')));
      },
      ['test/a.test.js'],
    );
  },
);

scratch("a full sha is the commit of the copy, with or without a linked worktree's .git file", async () => {
  const repo = makeRedRepo();
  const first = git(repo, 'rev-parse', 'HEAD').trim();
  writeFileSync(join(repo, 'src', 'greet.js'), 'export const greet = () => "second";\n');
  git(repo, 'commit', '-q', '-am', 'second');
  const linked = join(makeTempDir(), 'linked');
  git(repo, 'worktree', 'add', '-q', '--detach', linked, 'HEAD');
  for (const where of [repo, linked]) {
    await withScratchTree(where, first, [], async (dir) => {
      assert.is(git(dir, 'rev-parse', 'HEAD').trim(), first, where);
      assert.not.match(readFileSync(join(dir, 'src', 'greet.js'), 'utf8'), /second/, "the sha's tree, not HEAD's");
      assert.is(git(dir, 'status', '--porcelain'), '');
    });
  }
});

scratch("a commit that does not exist fails with git's message and leaves nothing", async () => {
  const repo = makeRedRepo();
  const before = new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('leap-verify-')));
  await withScratchTree(repo, 'no-such-ref', [], async () => 0).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /^git rev-parse failed \(exit 128\) in /),
  );
  assert.is(worktrees(repo), 1);
  assert.equal(
    readdirSync(tmpdir()).filter((n) => n.startsWith('leap-verify-') && !before.has(n)),
    [],
  );
});

scratch.run();

// ---

const diffs = suite('readBaseDiff');
diffs.after.each(cleanupTempDirs);

diffs('the work tree against the base, staged or not; past the limit, cut at a line end and said', () => {
  const repo = makeRedRepo();
  const base = git(repo, 'rev-parse', 'HEAD').trim();
  assert.equal(readBaseDiff(repo, base), { text: '', cut: null });
  writeFileSync(join(repo, 'src', 'greet.js'), 'export const greet = () => "ünï $(x) `y`";\n');
  writeFileSync(join(repo, 'src', 'new.js'), 'export const added = 1;\n');
  git(repo, 'add', 'src/new.js');
  const whole = readBaseDiff(repo, base);
  assert.is(whole.cut, null);
  assert.is(whole.text, git(repo, 'diff', base));
  assert.match(whole.text, '+export const greet = () => "ünï $(x) `y`";');
  assert.match(whole.text, '+export const added = 1;');
  const total = Buffer.byteLength(whole.text);
  const cut = readBaseDiff(repo, base, 100);
  assert.equal(cut.cut, { shown: Buffer.byteLength(cut.text), total });
  assert.ok(cut.text.endsWith('\n') && Buffer.byteLength(cut.text) <= 100 && whole.text.startsWith(cut.text));
  assert.ok(BASE_DIFF_LIMIT >= 16 * 1024);
});

diffs.run();

// ---

const top = suite('topLevelName');

top('the first path segment inside the repository, else null', () => {
  assert.is(topLevelName('/r', '/r/.tdd'), '.tdd');
  assert.is(topLevelName('/r', '/r/a/b'), 'a');
  assert.is(topLevelName('/r', '/elsewhere/.tdd'), null);
  assert.is(topLevelName('/r', '/r'), null);
});

top.run();
