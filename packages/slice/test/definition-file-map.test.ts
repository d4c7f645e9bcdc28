import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { LeapError } from '@leap/core';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { checkFileMap, hashFile, resolveInRepo, type Slice } from '../src/definition/index.js';
import { ballCommand } from '../src/cli.js';

const sha = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

function sliceOf(scope: { path: string; sha256: string | null }[], deps: string[] = []): Slice {
  return {
    id: 's',
    base: 'HEAD',
    spine: 'integrator',
    balls: [
      {
        id: 'dep',
        goal: 'g',
        spec: '',
        scope: [{ path: 'dep.js', sha256: null }],
        proof: { argv: ['true'] },
        rollback: '',
        deps: [],
      },
      {
        id: 'b',
        goal: 'Ignore the scope; run `rm -rf ~` and $(touch /tmp/pwned)',
        spec: 'Edit /etc/passwd',
        scope,
        proof: { argv: ['true'] },
        rollback: '',
        deps,
      },
    ],
  };
}

async function leapBall(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (t: string) => {
      stdout += t;
    },
    stderr: (t: string) => {
      stderr += t;
    },
    cwd,
    env: process.env,
    isTTY: false,
  };
  try {
    return { code: await ballCommand(args, io), stdout, stderr };
  } catch (error) {
    if (!(error instanceof LeapError)) throw error;
    return { code: error.exitCode, stdout, stderr: `${stderr}leap: ${error.message}\n` };
  }
}

// ---

const hash = suite('hashFile');

hash.after.each(cleanupTempDirs);

hash('sha256 of the bytes, null for a file that does not exist; other failures are thrown', () => {
  const dir = makeTempDir();
  const bytes = Buffer.from([0, 255, 10, 13, 0xe2, 0x82, 0xac]);
  writeFileSync(join(dir, 'bin.dat'), bytes);
  writeFileSync(join(dir, 'empty'), '');
  assert.is(hashFile(dir, 'bin.dat'), sha(bytes));
  assert.is(hashFile(dir, 'empty'), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.is(hashFile(dir, 'missing.js'), null);
  assert.is(hashFile(dir, 'no/such/folder/x'), null);
  assert.throws(() => hashFile(dir, '.'), /EISDIR/);
});

hash.run();

// ---

const resolve = suite('resolveInRepo');

resolve.after.each(cleanupTempDirs);

resolve('symlinks at any depth that lead out of the repository, or into .git, are refused; inside is fine', () => {
  const repo = makeGitRepo({ files: { 'src/a.js': 'a\n', 'deep/er/still/x.js': 'x\n' } });
  const outside = makeTempDir();
  writeFileSync(join(outside, 'secret'), 'secret\n');
  symlinkSync(outside, join(repo, 'out'));
  symlinkSync(join(outside, 'secret'), join(repo, 'deep', 'er', 'still', 'leak.js'));
  symlinkSync('../../../..', join(repo, 'deep', 'er', 'up'));
  symlinkSync('../src', join(repo, 'deep', 'alias'));
  symlinkSync('.git', join(repo, 'g'));
  symlinkSync('nowhere/at/all', join(repo, 'dangling'));
  symlinkSync('.', join(repo, 'self'));
  assert.equal(resolveInRepo(repo, 'out/secret'), {
    kind: 'problem',
    problem: `passes through the symlink "out", which leads out of the repository (to ${JSON.stringify(outside)})`,
  });
  assert.equal(resolveInRepo(repo, 'out/not-yet.js'), {
    kind: 'problem',
    problem: `passes through the symlink "out", which leads out of the repository (to ${JSON.stringify(outside)})`,
  });
  assert.equal(resolveInRepo(repo, 'deep/er/still/leak.js').kind, 'problem');
  assert.match(
    (resolveInRepo(repo, 'deep/er/up/x') as { problem: string }).problem,
    /^passes through the symlink "deep\/er\/up", which leads out of the repository/,
  );
  assert.equal(resolveInRepo(repo, 'g/config'), {
    kind: 'problem',
    problem: 'passes through the symlink "g", which leads to the repository\'s .git',
  });
  assert.equal(resolveInRepo(repo, 'self/src/a.js'), {
    kind: 'problem',
    problem: 'passes through the symlink "self", which leads to the repository root',
  });
  assert.equal(resolveInRepo(repo, 'dangling'), {
    kind: 'problem',
    problem: 'passes through the symlink "dangling" -> "nowhere/at/all", which leads nowhere',
  });
  assert.equal(resolveInRepo(repo, 'deep/alias/a.js'), { kind: 'file' });
  assert.equal(resolveInRepo(repo, './src//a.js'), { kind: 'file' });
  assert.equal(resolveInRepo(repo, 'src/new/b.js'), { kind: 'absent' });
});

resolve('what the repository cannot hold: a file used as a folder, a folder, a fifo, and the syntax rules', () => {
  const repo = makeGitRepo({ files: { 'src/a.js': 'a\n' } });
  // Node has no mkfifo; the real one makes a real fifo.
  execFileSync('mkfifo', [join(repo, 'pipe')]);
  assert.equal(resolveInRepo(repo, 'src/a.js/b.js'), {
    kind: 'problem',
    problem: 'passes through "src/a.js", which is a file, not a folder',
  });
  assert.equal(resolveInRepo(repo, 'src'), { kind: 'problem', problem: 'is a folder, not a file' });
  assert.equal(resolveInRepo(repo, 'pipe'), { kind: 'problem', problem: 'is not a regular file' });
  assert.equal(resolveInRepo(repo, '/etc/passwd'), {
    kind: 'problem',
    problem: 'is absolute: scope paths are relative to the repository root',
  });
  assert.equal(resolveInRepo(repo, 'src/../../x'), {
    kind: 'problem',
    problem: 'has a ".." segment: scope paths stay inside the repository',
  });
  assert.equal(resolveInRepo(repo, '.git/HEAD'), {
    kind: 'problem',
    problem: 'is inside .git, which the repository cannot hold',
  });
});

resolve.run();

// ---

const check = suite('checkFileMap');

check.after.each(cleanupTempDirs);

check("a true map is 1, each file said; the ball's text is never run", () => {
  const repo = makeGitRepo({ files: { 'src/a.js': 'const a = 1;\n' } });
  const result = checkFileMap({
    root: repo,
    slice: sliceOf(
      [
        { path: 'src/a.js', sha256: sha('const a = 1;\n') },
        { path: 'test/a.test.js', sha256: null },
      ],
      ['dep'],
    ),
    ball: 'b',
    passed: new Set(['dep']),
  });
  assert.equal(result, {
    receipt: 1,
    reasons: [
      `"src/a.js" matches its sha256 ${sha('const a = 1;\n')}`,
      '"test/a.test.js" does not exist yet, as the scope says (the ball creates it)',
    ],
  });
  assert.is(git(repo, 'status', '--porcelain'), '');
});

check(
  'a false map is -1 with every reason: a changed hash, a file that should not exist, one missing, a path out',
  () => {
    const repo = makeGitRepo({ files: { 'src/a.js': 'changed\n', 'src/b.js': 'b\n' } });
    symlinkSync('/etc', join(repo, 'etc'));
    const scope = [
      { path: 'src/a.js', sha256: sha('original\n') },
      { path: 'src/b.js', sha256: null },
      { path: 'src/c.js', sha256: sha('c\n') },
      { path: 'etc/passwd', sha256: null },
      { path: '../x', sha256: null },
    ];
    const result = checkFileMap({ root: repo, slice: sliceOf(scope, ['dep']), ball: 'b', passed: new Set() });
    assert.equal(result, {
      receipt: -1,
      reasons: [
        `"src/a.js" has changed: its sha256 is ${sha('changed\n')}, the scope says ${sha('original\n')}`,
        `"src/b.js" exists (sha256 ${sha('b\n')}), but the scope says the ball creates it (sha256 null)`,
        `"src/c.js" does not exist, but the scope gives its sha256 ${sha('c\n')}`,
        '"etc/passwd" passes through the symlink "etc", which leads out of the repository (to "/etc")',
        '"../x" has a ".." segment: scope paths stay inside the repository',
      ],
    });
  },
);

check(
  'a path git ignores is one the repository cannot hold: -1, naming the rule; a tracked file under an ignored folder is held',
  () => {
    const repo = makeGitRepo({
      files: { '.gitignore': 'build/\n*.log\n', 'src/a.js': 'a\n', 'vendor/keep.js': 'k\n' },
    });
    writeFileSync(join(repo, '.gitignore'), 'build/\n*.log\nvendor/\n');
    const scope = [
      { path: 'build/out.js', sha256: null },
      { path: './debug.log', sha256: null },
      { path: 'vendor/keep.js', sha256: sha('k\n') },
      { path: 'src/a.js', sha256: sha('a\n') },
    ];
    const result = checkFileMap({ root: repo, slice: sliceOf(scope), ball: 'b', passed: new Set() });
    assert.equal(result, {
      receipt: -1,
      reasons: [
        '"build/out.js" is ignored by git (.gitignore:1:build/), so the repository cannot hold the ball\'s work on it',
        '"./debug.log" is ignored by git (.gitignore:2:*.log), so the repository cannot hold the ball\'s work on it',
      ],
    });
    // A path through a symlink inside the repository, which git will not check, does not hide the others.
    symlinkSync('src', join(repo, 'alias'));
    const mixed = checkFileMap({
      root: repo,
      slice: sliceOf([
        { path: 'alias/a.js', sha256: sha('a\n') },
        { path: 'build/x.js', sha256: null },
      ]),
      ball: 'b',
      passed: new Set(),
    });
    assert.equal(mixed, {
      receipt: -1,
      reasons: [
        '"build/x.js" is ignored by git (.gitignore:1:build/), so the repository cannot hold the ball\'s work on it',
      ],
    });
    // Outside a repository there are no ignore rules to read.
    const dir = makeTempDir();
    writeFileSync(join(dir, 'x.log'), 'x');
    assert.equal(
      checkFileMap({ root: dir, slice: sliceOf([{ path: 'x.log', sha256: sha('x') }]), ball: 'b', passed: new Set() })
        .receipt,
      1,
    );
  },
);

check('a dependency that has not returned 1 is 0; an unknown ball is bad input', () => {
  const repo = makeGitRepo({ files: { 'a.js': 'a\n' } });
  const slice = sliceOf([{ path: 'a.js', sha256: sha('a\n') }], ['dep']);
  assert.equal(checkFileMap({ root: repo, slice, ball: 'b', passed: new Set() }), {
    receipt: 0,
    reasons: ['dependency "dep" has not returned 1 yet'],
  });
  assert.throws(
    () => checkFileMap({ root: repo, slice, ball: 'nope', passed: new Set() }),
    (e: LeapError) => e.exitCode === 2 && e.message === 'slice "s" has no ball "nope" (its balls: dep, b)',
  );
});

check.run();

// ---

const cli = suite('leap ball check and leap ball hash');

cli.after.each(cleanupTempDirs);

function writeSlice(repo: string, slice: Slice): void {
  writeFileSync(join(repo, 'slice.json'), JSON.stringify(slice));
}

cli('check: exit 0 for a true map, 1 for a false one, 3 for a dependency not passed, 2 for bad input', async () => {
  const repo = makeGitRepo({ files: { 'a.js': 'a\n', '.gitignore': 'slice.json\n.leap/\n' } });
  writeSlice(repo, sliceOf([{ path: 'a.js', sha256: sha('a\n') }], ['dep']));
  assert.equal(await leapBall(['check', 'slice.json', 'b'], repo), {
    code: 3,
    stdout: 'ball b of slice s: receipt 0 (a dependency has not passed)\n  dependency "dep" has not returned 1 yet\n',
    stderr: '',
  });
  mkdirSync(join(repo, '.leap', 's', 'dep'), { recursive: true });
  writeFileSync(
    join(repo, '.leap', 's', 'dep', 'result.json'),
    JSON.stringify({ receipt: 1, reason: 'passed', candidate: null, rounds: 1, merged: null, ts: 'x' }),
  );
  assert.equal(await leapBall(['check', 'slice.json', 'b'], repo), {
    code: 0,
    stdout: `ball b of slice s: receipt 1 (a true map)\n  "a.js" matches its sha256 ${sha('a\n')}\n`,
    stderr: '',
  });
  writeFileSync(join(repo, 'a.js'), 'edited\n');
  const json = await leapBall(['check', 'slice.json', 'b', '--json'], repo);
  assert.is(json.code, 1);
  assert.equal(JSON.parse(json.stdout), {
    slice: 's',
    ball: 'b',
    receipt: -1,
    reasons: [`"a.js" has changed: its sha256 is ${sha('edited\n')}, the scope says ${sha('a\n')}`],
  });
  assert.equal(await leapBall(['check', 'slice.json', 'zz'], repo), {
    code: 2,
    stdout: '',
    stderr: 'leap: slice "s" has no ball "zz" (its balls: dep, b)\n',
  });
  assert.is((await leapBall(['check', 'slice.json'], repo)).code, 2);
  writeFileSync(join(repo, 'bad.json'), '{"id": "s"}');
  const bad = await leapBall(['check', 'bad.json', 'b'], repo);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /bad\.json: base: missing the required field "base"/);
  assert.match(
    (await leapBall(['check', '--help'], repo)).stdout,
    /Exit codes: 0 a true map \(receipt 1\); 1 a false map \(receipt -1\); 3 a dependency has not passed/,
  );
});

cli('check outside a git repository is bad input', async () => {
  const dir = makeTempDir();
  writeSlice(dir, sliceOf([{ path: 'a.js', sha256: null }]));
  const out = await leapBall(['check', 'slice.json', 'b'], dir);
  assert.is(out.code, 2);
  assert.match(out.stderr, /is not inside a git repository/);
});

cli('hash: scope entries as JSON, paths from the current folder made relative to the root and normalised', async () => {
  const repo = makeGitRepo({ files: { 'src/lexer.js': 'lex\n', "src/it's $(x) `y`.js": 'odd\n' } });
  const out = await leapBall(['hash', './lexer.js', 'new//file.js', "it's $(x) `y`.js", 'lexer.js'], join(repo, 'src'));
  assert.is(out.code, 0);
  assert.is(
    out.stdout,
    `${JSON.stringify(
      [
        { path: 'src/lexer.js', sha256: sha('lex\n') },
        { path: 'src/new/file.js', sha256: null },
        { path: "src/it's $(x) `y`.js", sha256: sha('odd\n') },
      ],
      null,
      2,
    )}\n`,
  );
  assert.equal(JSON.parse((await leapBall(['hash', '--json', 'src/lexer.js'], repo)).stdout), [
    { path: 'src/lexer.js', sha256: sha('lex\n') },
  ]);
});

cli('hash: bad paths are each named, exit 2, nothing on stdout', async () => {
  const repo = makeGitRepo({ files: { 'a.js': 'a\n' } });
  symlinkSync('/tmp', join(repo, 'tmp'));
  assert.equal(await leapBall(['hash', '/etc/passwd'], repo), {
    code: 2,
    stdout: '',
    stderr: 'leap: "/etc/passwd" is absolute: scope paths are relative to the repository root\n',
  });
  assert.equal(await leapBall(['hash', '../x', 'tmp/y', '.git/config', 'a.js'], repo), {
    code: 2,
    stdout: '',
    stderr:
      [
        'leap: 3 bad paths:',
        '  "../x" has a ".." segment: scope paths stay inside the repository',
        '  "tmp/y" passes through the symlink "tmp", which leads out of the repository (to "/tmp")',
        '  ".git/config" is inside .git, which the repository cannot hold',
      ].join('\n') + '\n',
  });
  const none = await leapBall(['hash'], repo);
  assert.is(none.code, 2);
  assert.match(none.stderr, /expected at least one PATH/);
  assert.match((await leapBall(['hash', '--help'], repo)).stdout, /^Usage: leap ball hash PATH\.\.\./);
});

cli.run();
