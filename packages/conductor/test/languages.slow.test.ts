// Real small projects of other languages through a whole run, each with its own plain test command: a Rust
// crate (cargo, no dependencies) whose step adds an inline `#[cfg(test)]` module to src/lib.rs (named by
// --tests), a pytest project, and a Go module (`go test ./...`, its `_test.go` files found by the conventions). The developer is the command agent of fixtures/dev-agent.mjs applying real
// edits; the verifier always passes, so ground truth (the conductor's and leap-verify's) decides.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { runTdd } from '../src/index.js';
import { cleanEnv, commandAgents, planFile, subjects } from './helpers.js';

const langs = suite('runTdd: real projects of other languages');
langs.after.each(cleanupTempDirs);

/** The command must run here: CI installs it from Debian (the package named). */
function need(command: string, args: string[], debian: string): void {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
  } catch {
    throw new Error(
      `${command} ${args.join(' ')} does not run: these tests build a real project (Debian: apt-get install ${debian})`,
    );
  }
}

const issue = (criterion: string) =>
  `# A real project\n\nOne behaviour.\n\n## Acceptance criteria\n\n- [ ] ${criterion}\n`;

const RUST_CODE = 'pub fn double(x: i32) -> i32 {\n    x\n}\n';
const RUST_TESTS =
  '\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn doubles() {\n        assert_eq!(double(3), 6);\n    }\n}\n';

langs(
  'a Rust crate: an inline test module is a red; a green that weakens it is refused with the file named; the code around it may change',
  async () => {
    need('cargo', ['--version'], 'cargo');
    const TITLE = 'double doubles';
    const repo = makeGitRepo({
      files: {
        '.gitignore': '/target\nCargo.lock\n',
        'Cargo.toml': '[package]\nname = "adder"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
        'src/lib.rs': RUST_CODE,
        '.tdd/issues/1.md': issue('double returns twice its argument'),
      },
      prefix: 'leap-crate-',
    });
    const agents = commandAgents({
      [TITLE]: {
        red: { path: 'src/lib.rs', content: `${RUST_CODE}${RUST_TESTS}` },
        // The first green makes the test pass by changing it: ground truth refuses it, and the revision does the work.
        green: { path: 'src/lib.rs', content: `${RUST_CODE}${RUST_TESTS.replace('double(3), 6', 'double(3), 3')}` },
        'green-2': { path: 'src/lib.rs', content: `${RUST_CODE.replace('    x\n', '    x * 2\n')}${RUST_TESTS}` },
        refactor: {
          path: 'src/lib.rs',
          content: `/// Twice \`x\`.\n${RUST_CODE.replace('    x\n', '    x + x\n')}${RUST_TESTS}`,
        },
      },
    });
    const env = cleanEnv({ CARGO_TARGET_DIR: join(makeTempDir('leap-cargo-'), 'target'), CARGO_NET_OFFLINE: 'true' });
    const lines: string[] = [];
    const result = await runTdd({
      cwd: repo,
      issue: 1,
      testCmd: 'cargo test --quiet',
      tests: ['src/**/*.rs'],
      planFile: planFile([TITLE]),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env,
      progress: (line) => lines.push(line),
    });
    assert.is(result.code, 0, `${JSON.stringify(result.bail)}\n${lines.join('\n')}`);
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
    assert.equal(
      result.verdicts.map((v) => `${v.phase} ${v.verdict}`),
      ['red PASS', 'green REJECT', 'green PASS', 'refactor PASS'],
    );
    assert.match(result.verdicts[1]?.reason ?? '', /test files present at the red commit [0-9a-f]{12}: src\/lib\.rs/);
    // The red commit is the test module alone; the tests in the end are the red commit's, byte for byte.
    assert.is(git(repo, 'show', 'HEAD~2:src/lib.rs'), `${RUST_CODE}${RUST_TESTS}`);
    assert.ok(readFileSync(join(repo, 'src/lib.rs'), 'utf8').endsWith(RUST_TESTS));
    // A plain cargo test in the user's tree, with the user's cache, runs the test and passes.
    assert.match(execFileSync('cargo', ['test', '--quiet'], { cwd: repo, env, encoding: 'utf8' }), /1 passed/);
  },
);

langs('a pytest project: red, green, refactor with python3 -m pytest', async () => {
  need('python3', ['-m', 'pytest', '--version'], 'python3-pytest');
  const TITLE = 'add adds';
  const repo = makeGitRepo({
    files: {
      '.gitignore': '__pycache__/\n.pytest_cache/\n',
      'pytest.ini': '[pytest]\ntestpaths = tests\n',
      'calc.py': 'def add(a, b):\n    return 0\n',
      'tests/test_smoke.py': 'import calc\n\n\ndef test_add_exists():\n    assert callable(calc.add)\n',
      '.tdd/issues/1.md': issue('add returns the sum'),
    },
    prefix: 'leap-pytest-',
  });
  const agents = commandAgents({
    [TITLE]: {
      red: {
        path: 'tests/test_add.py',
        content: 'import calc\n\n\ndef test_add_sums():\n    assert calc.add(2, 3) == 5\n',
      },
      green: { path: 'calc.py', content: 'def add(a, b):\n    return a + b\n' },
      refactor: {
        path: 'calc.py',
        content: '"""Arithmetic."""\n\n\ndef add(a, b):\n    """The sum of a and b."""\n    return a + b\n',
      },
    },
  });
  const env = cleanEnv({ PYTHONDONTWRITEBYTECODE: '1' });
  const result = await runTdd({
    cwd: repo,
    issue: 1,
    testCmd: 'python3 -m pytest -q -p no:cacheprovider',
    planFile: planFile([TITLE]),
    developer: 'dev',
    verifier: 'ver',
    agentsFile: agents.file,
    env,
  });
  assert.is(result.code, 0, JSON.stringify(result.bail));
  assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
  assert.equal(git(repo, 'show', '--format=', '--name-only', 'HEAD~2').trim(), 'tests/test_add.py');
  assert.match(
    execFileSync('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], { cwd: repo, env, encoding: 'utf8' }),
    /2 passed/,
  );
});

const GO_CODE = 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn 0\n}\n';
const GO_SMOKE =
  'package calc\n\nimport "testing"\n\nfunc TestAddExists(t *testing.T) {\n\tif Add(0, 0) != 0 {\n\t\tt.Fatal("Add(0, 0) is not 0")\n\t}\n}\n';
// The red's test reads its cases from testdata/ (Go's own convention for fixtures, no test file by the conventions):
// a red that adds a file beside its tests is checked in the scratch copy, never skipped as a tree already run.
const GO_TEST =
  'package calc\n\nimport (\n\t"os"\n\t"strings"\n\t"testing"\n)\n\nfunc TestAddSums(t *testing.T) {\n\tdata, err := os.ReadFile("testdata/sums.txt")\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n\tif strings.TrimSpace(string(data)) != "2 3 5" || Add(2, 3) != 5 {\n\t\tt.Fatalf("Add(2, 3) = %d", Add(2, 3))\n\t}\n}\n';

// Go's build cache keys every compiled package and every cached test result on content: the action ID of a
// package hashes its files' bytes (and its folder, unless -trimpath), a cached test result is keyed on the test
// binary's ID and on the path, size and mtime of each file the test opened. Measured (go 1.19): without
// -trimpath a copy in another folder shares nothing; with it, a copy whose bytes are the same reuses the
// package and the result, which is right. So the red check's scratch copy may share GOCACHE with the user's
// tree (nothing of it is linked into the copy; GOCACHE lives outside the repository): this test runs with
// -trimpath and one GOCACHE for the run and the user's plain `go test ./...`, and the red commit still fails.
langs(
  'a Go module: red, green, refactor with go test ./...; a green that deletes another test is refused; the shared build cache never lies',
  async () => {
    need('go', ['version'], 'golang-go');
    const TITLE = 'Add adds';
    const repo = makeGitRepo({
      files: {
        'go.mod': 'module example.com/calc\n\ngo 1.19\n',
        'calc.go': GO_CODE,
        'smoke_test.go': GO_SMOKE,
        '.tdd/issues/1.md': issue('Add returns the sum of its arguments'),
      },
      prefix: 'leap-gomod-',
    });
    const agents = commandAgents({
      [TITLE]: {
        red: { path: 'add_test.go', content: GO_TEST, extra: [{ path: 'testdata/sums.txt', content: '2 3 5\n' }] },
        // The first green passes by deleting the other test file's test: ground truth refuses it, with the file named.
        green: {
          path: 'calc.go',
          content: GO_CODE.replace('return 0', 'return a + b'),
          extra: [{ path: 'smoke_test.go', content: 'package calc\n' }],
        },
        // A revision starts from the rejected attempt's tree: it puts the test back.
        'green-2': {
          path: 'calc.go',
          content: GO_CODE.replace('return 0', 'return a + b'),
          extra: [{ path: 'smoke_test.go', content: GO_SMOKE }],
        },
        refactor: {
          path: 'calc.go',
          content: `// Package calc does arithmetic.\n${GO_CODE.replace('return 0', 'sum := a + b\n\treturn sum')}`,
        },
      },
    });
    const home = makeTempDir('leap-go-');
    const env = cleanEnv({
      GOCACHE: join(home, 'cache'),
      GOPATH: join(home, 'path'),
      GOFLAGS: '-trimpath',
      GOPROXY: 'off',
      GOTOOLCHAIN: 'local',
      GO111MODULE: 'on',
    });
    const lines: string[] = [];
    const result = await runTdd({
      // No test command given: go.mod says `go test ./...`.
      cwd: repo,
      issue: 1,
      planFile: planFile([TITLE]),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env,
      progress: (line) => lines.push(line),
    });
    assert.is(result.code, 0, `${JSON.stringify(result.bail)}\n${lines.join('\n')}`);
    assert.ok(
      lines.some((l) => l.includes('tests: `go test ./...`')),
      lines.join('\n'),
    );
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
    assert.equal(
      result.verdicts.map((v) => `${v.phase} ${v.verdict}`),
      ['red PASS', 'green REJECT', 'green PASS', 'refactor PASS'],
    );
    assert.match(result.verdicts[1]?.reason ?? '', /test files present at the red commit [0-9a-f]{12}: smoke_test\.go/);
    assert.equal(git(repo, 'show', '--format=', '--name-only', 'HEAD~2').trim().split('\n'), [
      'add_test.go',
      'testdata/sums.txt',
    ]);
    assert.is(git(repo, 'show', 'HEAD:smoke_test.go'), GO_SMOKE);
    // The red check ran the copy without add_test.go (it passed, and was cached): the suite events say so.
    const suites = readFileSync(join(repo, '.tdd', 'events.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"event":"suite"'))
      .map((l) => JSON.parse(l) as { phase: string; code: number });
    assert.equal(
      suites.filter((s) => s.phase === 'red').map((s) => s.code === 0),
      [false, true],
    );
    // The user's plain go test, with the same cache: the red commit fails (no result cached from the copy is
    // reused for it), the branch's end passes.
    const goTest = () => {
      try {
        return {
          code: 0,
          out: execFileSync('go', ['test', './...'], { cwd: repo, env, encoding: 'utf8', stdio: 'pipe' }),
        };
      } catch (error) {
        return { code: (error as { status: number }).status, out: String((error as { stdout: string }).stdout) };
      }
    };
    const branch = git(repo, 'symbolic-ref', '--short', 'HEAD').trim();
    git(repo, 'checkout', '-q', 'HEAD~2');
    const atRed = goTest();
    assert.is.not(atRed.code, 0, atRed.out);
    assert.match(atRed.out, 'Add(2, 3) = 0');
    git(repo, 'checkout', '-q', branch);
    const atEnd = goTest();
    assert.is(atEnd.code, 0, atEnd.out);
    assert.match(atEnd.out, /^ok\s+example\.com\/calc/m);
  },
);

langs.run();
