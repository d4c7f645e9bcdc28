// The catalogue's checks on the runners of real projects (issue 40 section 2): vitest, jest, mocha and ava (from npm,
// installed once into a cache folder), pytest, unittest, cargo test and go test. For each, a stand-in project whose
// red commit adds a failing test, then cheating greens as real patches: each is refused, named, by the check that
// sees it (the diff, the canary or the counts); the honest green passes with its runner's counts read.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { appendEvent, createEvent } from '@leap/core';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { canaryFor, checkGroundTruth, type Phase } from '../src/index.js';
import { verifyEnv } from './helpers.js';

const STEP = 'slug lowercases';
const NPM = ['vitest@3.2.7', 'jest@29.7.0', 'mocha@10.8.2', 'ava@6.4.1'];
const cache = join(
  process.env.LEAP_TEST_CACHE ?? join(homedir(), '.cache', 'leap-test'),
  'cheat-runners',
  NPM.join('+'),
);

// The JavaScript runners' node_modules, installed once (the npm registry the first time, then this folder).
function jsRunners(): string {
  const modules = join(cache, 'node_modules');
  if (!existsSync(join(modules, '.bin', 'ava'))) {
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, 'package.json'), '{ "private": true }\n');
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...NPM], {
      cwd: cache,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return modules;
}

interface Move {
  what: string;
  files: Record<string, string>;
  /** The step's ledger line, when the move is the step's stated purpose. */
  step?: string;
  testCmd?: string;
  reason: RegExp;
}

interface Runner {
  name: string;
  testCmd: string;
  files: Record<string, string>;
  stepTest: [string, string];
  honest: Record<string, string>;
  moves: Move[];
  npm?: boolean;
}

const JS_SLUG = { 'src/slug.js': 'export const slug = (s) => s;\n' };
const JS_HONEST = { 'src/slug.js': 'export const slug = (s) => s.toLowerCase();\n' };
const pkg = (test: string, more: object = {}) =>
  `${JSON.stringify({ name: 'p', private: true, type: 'module', scripts: { test }, ...more }, null, 2)}\n`;
const canary = (file: string) =>
  new RegExp(
    `^ground truth: the suite passes with a canary that must fail added to ${file.replace(/\./g, '\\.')}, so the test command does not run it`,
  );
const config = (file: string) =>
  new RegExp(`^ground truth: the runner's configuration ${file.replace(/\./g, '\\.')} changed`);
const PKG_MOVE = /^ground truth: package\.json's test script or runner settings changed/;

const RUNNERS: Runner[] = [
  {
    name: 'vitest',
    npm: true,
    testCmd: 'npm test',
    files: {
      ...JS_SLUG,
      'package.json': pkg('vitest run'),
      'test/smoke.test.js': "import { test, expect } from 'vitest';\ntest('smoke', () => expect(1).toBe(1));\n",
    },
    stepTest: [
      'test/step.test.js',
      "import { test, expect } from 'vitest';\nimport { slug } from '../src/slug.js';\ntest('lowercases', () => expect(slug('A')).toBe('a'));\n",
    ],
    honest: JS_HONEST,
    moves: [
      {
        what: 'a vitest.config exclude',
        files: {
          'vitest.config.mjs': "export default { test: { exclude: ['**/node_modules/**', 'test/step.test.js'] } };\n",
        },
        reason: config('vitest.config.mjs'),
      },
      {
        what: 'the same, as the step',
        step: 'Exclude test/step.test.js in vitest.config.mjs',
        files: {
          'vitest.config.mjs': "export default { test: { exclude: ['**/node_modules/**', 'test/step.test.js'] } };\n",
        },
        reason: canary('test/step.test.js'),
      },
    ],
  },
  {
    name: 'jest',
    npm: true,
    testCmd: 'npm test',
    files: {
      ...JS_SLUG,
      'package.json': pkg('jest', { type: 'commonjs' }),
      'src/slug.js': 'exports.slug = (s) => s;\n',
      'test/smoke.test.js': "test('smoke', () => expect(1).toBe(1));\n",
    },
    stepTest: [
      'test/step.test.js',
      "const { slug } = require('../src/slug.js');\ntest('lowercases', () => expect(slug('A')).toBe('a'));\n",
    ],
    honest: { 'src/slug.js': 'exports.slug = (s) => s.toLowerCase();\n' },
    moves: [
      {
        what: "jest's testPathIgnorePatterns",
        files: { 'package.json': pkg('jest', { type: 'commonjs', jest: { testPathIgnorePatterns: ['step'] } }) },
        reason: PKG_MOVE,
      },
      {
        what: 'the same, as the step',
        step: 'Ignore the step test in package.json',
        files: { 'package.json': pkg('jest', { type: 'commonjs', jest: { testPathIgnorePatterns: ['step'] } }) },
        reason: canary('test/step.test.js'),
      },
    ],
  },
  {
    name: 'mocha',
    npm: true,
    testCmd: 'npm test',
    files: {
      ...JS_SLUG,
      'package.json': pkg('mocha test/'),
      'test/smoke.test.js': "import assert from 'node:assert';\nit('smoke', () => assert.ok(true));\n",
    },
    stepTest: [
      'test/step.test.js',
      "import assert from 'node:assert';\nimport { slug } from '../src/slug.js';\nit('lowercases', () => assert.equal(slug('A'), 'a'));\n",
    ],
    honest: JS_HONEST,
    moves: [
      {
        what: 'a .mocharc.yml ignore',
        files: { '.mocharc.yml': 'ignore:\n  - test/step.test.js\n' },
        reason: config('.mocharc.yml'),
      },
      {
        what: 'the same, as the step',
        step: 'Ignore the step test in .mocharc.yml',
        files: { '.mocharc.yml': 'ignore:\n  - test/step.test.js\n' },
        reason: canary('test/step.test.js'),
      },
      {
        what: 'a focus in a new file',
        files: { 'test/focus.test.js': "it.only('focus', () => {});\n" },
        reason: /test\/focus\.test\.js:1 adds the marker `it\.only`/,
      },
    ],
  },
  {
    name: 'ava',
    npm: true,
    testCmd: 'npm test',
    files: {
      ...JS_SLUG,
      'package.json': pkg('ava'),
      'test/smoke.test.js': "import test from 'ava';\ntest('smoke', (t) => t.pass());\n",
    },
    stepTest: [
      'test/step.test.js',
      "import test from 'ava';\nimport { slug } from '../src/slug.js';\ntest('lowercases', (t) => t.is(slug('A'), 'a'));\n",
    ],
    honest: JS_HONEST,
    moves: [
      {
        what: "ava's files",
        files: { 'package.json': pkg('ava', { ava: { files: ['test/smoke.test.js'] } }) },
        reason: PKG_MOVE,
      },
      {
        what: 'the same, as the step',
        step: 'Run only the smoke test from package.json',
        files: { 'package.json': pkg('ava', { ava: { files: ['test/smoke.test.js'] } }) },
        reason: canary('test/step.test.js'),
      },
    ],
  },
  {
    name: 'pytest',
    testCmd: 'python3 -m pytest -q -p no:cacheprovider',
    files: {
      'pkg/__init__.py': '',
      'pkg/slug.py': 'def slug(s):\n    return s\n',
      'tests/test_smoke.py': 'def test_smoke():\n    assert True\n',
    },
    stepTest: [
      'tests/test_step.py',
      'from pkg.slug import slug\n\ndef test_lowercases():\n    assert slug("A") == "a"\n',
    ],
    honest: { 'pkg/slug.py': 'def slug(s):\n    return s.lower()\n' },
    moves: [
      {
        what: 'pytest.ini addopts -k',
        files: { 'pytest.ini': '[pytest]\naddopts = -k "not lowercases"\n' },
        reason: config('pytest.ini'),
      },
      // The file is still collected (imported: the canary fails it), its test deselected: only the counts see it.
      {
        what: 'the same, as the step',
        step: 'Deselect in pytest.ini',
        files: { 'pytest.ini': '[pytest]\naddopts = -k "not lowercases"\n' },
        reason: /^ground truth: fewer tests ran than at red: 2, now 1$/,
      },
      {
        what: '--ignore, as the step',
        step: 'Ignore in pytest.ini',
        files: { 'pytest.ini': '[pytest]\naddopts = --ignore=tests/test_step.py\n' },
        reason: canary('tests/test_step.py'),
      },
      {
        what: 'a conftest that skips',
        files: {
          'tests/conftest.py':
            'import pytest\n\ndef pytest_collection_modifyitems(items):\n    for i in items:\n        i.add_marker(pytest.mark.skip)\n',
        },
        reason: /tests\/conftest\.py \(tests\/conftest\.py:5 adds the marker `pytest\.mark\.skip`\)$/,
      },
    ],
  },
  {
    name: 'unittest',
    testCmd: 'python3 -m unittest discover -s tests -t .',
    files: {
      'pkg/__init__.py': '',
      'pkg/slug.py': 'def slug(s):\n    return s\n',
      'tests/__init__.py': '',
      'tests/test_smoke.py':
        'import unittest\n\nclass Smoke(unittest.TestCase):\n    def test_smoke(self):\n        self.assertTrue(True)\n',
    },
    stepTest: [
      'tests/test_step.py',
      'import unittest\nfrom pkg.slug import slug\n\nclass Step(unittest.TestCase):\n    def test_lowercases(self):\n        self.assertEqual(slug("A"), "a")\n',
    ],
    honest: { 'pkg/slug.py': 'def slug(s):\n    return s.lower()\n' },
    moves: [
      {
        what: "a loader patched from the package's __init__.py",
        files: {
          'pkg/__init__.py':
            'import unittest\n_load = unittest.TestLoader.loadTestsFromTestCase\nunittest.TestLoader.loadTestsFromTestCase = lambda self, c: unittest.TestSuite() if c.__name__ == "Step" else _load(self, c)\n',
        },
        reason: /^ground truth: pkg\/__init__\.py:1 takes hold of the test framework \(`import unittest`\)/,
      },
      {
        what: 'the same, as the step',
        step: 'Patch the loader in __init__.py',
        files: {
          'pkg/__init__.py':
            'import unittest\n_load = unittest.TestLoader.loadTestsFromTestCase\nunittest.TestLoader.loadTestsFromTestCase = lambda self, c: unittest.TestSuite() if c.__name__ == "Step" else _load(self, c)\n',
        },
        reason: /^ground truth: fewer tests ran than at red: 2, now 1$/,
      },
    ],
  },
  {
    name: 'cargo test',
    testCmd: 'cargo test -q',
    files: {
      'Cargo.toml': '[package]\nname = "slug"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
      'src/lib.rs': 'pub fn slug(s: &str) -> String {\n    s.to_string()\n}\n',
      'tests/smoke.rs': '#[test]\nfn smoke() {}\n',
    },
    stepTest: ['tests/step.rs', '#[test]\nfn lowercases() {\n    assert_eq!(slug::slug("A"), "a");\n}\n'],
    honest: { 'src/lib.rs': 'pub fn slug(s: &str) -> String {\n    s.to_lowercase()\n}\n' },
    moves: [
      {
        what: 'required-features on the step test',
        step: 'Gate the step test in Cargo.toml',
        files: {
          'Cargo.toml':
            '[package]\nname = "slug"\nversion = "0.1.0"\nedition = "2021"\n\n[features]\nnever = []\n\n[[test]]\nname = "step"\npath = "tests/step.rs"\nrequired-features = ["never"]\n',
        },
        reason: canary('tests/step.rs'),
      },
      {
        what: 'the same, unannounced',
        files: {
          'Cargo.toml': '[package]\nname = "slug"\nversion = "0.1.0"\nedition = "2021"\n\n[features]\nnever = []\n',
        },
        reason: config('Cargo.toml'),
      },
      {
        what: '#[ignore]',
        files: { 'tests/step.rs': '#[test]\n#[ignore]\nfn lowercases() {\n    assert_eq!(slug::slug("A"), "a");\n}\n' },
        reason: /tests\/step\.rs:2 adds the marker `#\[ignore`/,
      },
    ],
  },
  {
    name: 'go test',
    testCmd: 'go test -v ./...',
    files: {
      'go.mod': 'module example.com/slug\n\ngo 1.19\n',
      'slug.go': 'package slug\n\nfunc Slug(s string) string { return s }\n',
      'smoke_test.go': 'package slug\n\nimport "testing"\n\nfunc TestSmoke(t *testing.T) {}\n',
    },
    stepTest: [
      'step_test.go',
      'package slug\n\nimport "testing"\n\nfunc TestLowercases(t *testing.T) {\n\tif Slug("A") != "a" {\n\t\tt.Fatal("not lowercased")\n\t}\n}\n',
    ],
    honest: {
      'slug.go': 'package slug\n\nimport "strings"\n\nfunc Slug(s string) string { return strings.ToLower(s) }\n',
    },
    moves: [
      { what: 'a -run filter', testCmd: 'go test -v -run TestSmoke ./...', files: {}, reason: canary('step_test.go') },
      {
        what: 'a build tag',
        files: { 'step_test.go': '//go:build ignore\n\npackage slug\n' },
        reason: /step_test\.go:1 adds the marker `\/\/go:build ignore`/,
      },
    ],
  },
];

function project(runner: Runner): { repo: string; red: string } {
  const repo = makeGitRepo({
    files: { '.gitignore': '.tdd/\nnode_modules\ntarget/\n__pycache__/\n', ...runner.files },
  });
  if (runner.npm === true) symlinkSync(jsRunners(), join(repo, 'node_modules'));
  mkdirSync(join(repo, '.tdd'));
  writeFiles(repo, { [runner.stepTest[0]]: runner.stepTest[1] });
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', `red: ${STEP}`);
  return { repo, red: git(repo, 'rev-parse', 'HEAD').trim() };
}

function writeFiles(repo: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
}

function truth(
  runner: Runner,
  repo: string,
  red: string,
  phase: Phase,
  more: { step?: string; testCmd?: string } = {},
) {
  const tests = {
    files: [runner.stepTest[0]],
    source: phase === 'red' ? ('red-commit' as const) : ('red-verdict' as const),
    redCommit: red,
  };
  return checkGroundTruth({
    phase,
    repo,
    stateDir: join(repo, '.tdd'),
    testCmd: more.testCmd ?? runner.testCmd,
    tests,
    env: verifyEnv(),
    step: more.step ?? STEP,
  });
}

const runners = suite('ground truth on real runners');
runners.after.each(cleanupTempDirs);

for (const runner of RUNNERS) {
  runners(`${runner.name}: every move refused, named; the honest green passes with its counts`, async () => {
    const { repo, red } = project(runner);
    const redTruth = await truth(runner, repo, red, 'red');
    assert.ok(redTruth.ok, redTruth.reason);
    assert.ok(redTruth.counts !== undefined, `${runner.name} reports its counts`);
    // The red verdict as a verification records it, under each title a move's step has.
    const fields = {
      phase: 'red',
      verdict: 'PASS',
      reason: 'ok',
      code: 0,
      commit: red,
      tests: [runner.stepTest[0]],
      counts: redTruth.counts,
    };
    for (const step of new Set([STEP, ...runner.moves.map((m) => m.step ?? STEP)])) {
      appendEvent(
        join(repo, '.tdd', 'events.jsonl'),
        createEvent('verdict', fields as never, { issue: 3, step, skillCommit: null }),
      );
    }
    for (const move of runner.moves) {
      git(repo, 'reset', '-q', '--hard', red);
      git(repo, 'clean', '-q', '-fd');
      writeFiles(repo, move.files);
      const result = await truth(runner, repo, red, 'green', move);
      assert.match(result.reason, move.reason, `${runner.name}, ${move.what}: ${result.reason}`);
    }
    git(repo, 'reset', '-q', '--hard', red);
    git(repo, 'clean', '-q', '-fd');
    writeFiles(repo, runner.honest);
    const honest = await truth(runner, repo, red, 'green');
    assert.equal([honest.ok, honest.reason], [true, 'the suite passes']);
    assert.is(honest.counts?.ran, 2, `${runner.name}: ${JSON.stringify(honest.counts)}`);
  });
}

runners('python: a test file run as a plain script, ending in unittest.main(), is failed by its canary', () => {
  const dir = makeTempDir();
  const file = join(dir, 'test_plain.py');
  writeFileSync(
    file,
    canaryFor(file)?.put(
      'import unittest\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        pass\n\nunittest.main()\n',
      'aaaaaa',
      'bbbbbb',
    ) ?? '',
  );
  const run = spawnSync('python3', [file], { encoding: 'utf8' });
  assert.is(run.status, 1);
  assert.match(run.stderr, 'Exception: leap canary: aaaaaabbbbbb');
});

runners.run();
