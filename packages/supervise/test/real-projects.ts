// Small real projects of the major test runners, for the slow tests of the sandbox: vitest 3 with a
// vitest.config.ts and jest 30 (installed once from npm into a cache outside the repository), pytest in a virtual
// environment, Go and cargo. Each is a git repository whose suite passes, and can take a red commit.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { TEST_CACHE, git, npmInstalled } from '@leap/test-utils';

export type Runner = 'vitest' | 'jest' | 'pytest' | 'go' | 'cargo';
export const RUNNERS: readonly Runner[] = ['vitest', 'jest', 'pytest', 'go', 'cargo'];

const NPM = ['vitest@3.2.7', 'jest@30.5.2'];

/** The node_modules holding vitest and jest, installed from npm the first time (later runs reuse it). */
function npmModules(): string {
  const whole = (modules: string): boolean => ['vitest', 'jest'].every((bin) => existsSync(join(modules, '.bin', bin)));
  return npmInstalled(join(TEST_CACHE, 'sandbox-runners', NPM.join('+')), NPM, whole);
}

/** rustup's places when cargo is rustup's: a test's home of its own would hide them. */
function rustupEnv(): string {
  const places = {
    RUSTUP_HOME: process.env.RUSTUP_HOME ?? join(homedir(), '.rustup'),
    CARGO_HOME: process.env.CARGO_HOME ?? join(homedir(), '.cargo'),
  };
  return existsSync(places.RUSTUP_HOME)
    ? Object.entries(places)
        .map(([k, v]) => `${k}='${v}' `)
        .join('')
    : '';
}

interface Shape {
  files: Record<string, string>;
  /** The red commit's failing test. */
  red: Record<string, string>;
  testCmd: string;
  /** Ignored places the suite needs, made after the files. */
  prepare?: (repo: string) => void;
}

function shape(runner: Runner): Shape {
  switch (runner) {
    case 'vitest':
      return {
        files: {
          '.gitignore': 'node_modules/\ncoverage/\n',
          'package.json': '{ "name": "vp", "private": true, "type": "module", "scripts": { "test": "vitest run" } }\n',
          'vitest.config.ts':
            "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['test/**/*.test.ts'] } });\n",
          'src/add.ts': 'export const add = (a: number, b: number): number => a + b;\n',
          'test/add.test.ts':
            "import { expect, test } from 'vitest';\nimport { add } from '../src/add';\ntest('adds', () => expect(add(1, 2)).toBe(3));\n",
        },
        red: {
          'test/sub.test.ts':
            "import { expect, test } from 'vitest';\nimport * as m from '../src/add';\ntest('subtracts', () => expect((m as Record<string, Function>).sub?.(3, 1)).toBe(2));\n",
        },
        testCmd: 'npx vitest run',
        prepare: linkNodeModules,
      };
    case 'jest':
      return {
        files: {
          '.gitignore': 'node_modules/\ncoverage/\n',
          'package.json': '{ "name": "jp", "private": true, "scripts": { "test": "jest" } }\n',
          'src/add.js': 'exports.add = (a, b) => a + b;\n',
          'test/add.test.js':
            "const { add } = require('../src/add');\ntest('adds', () => expect(add(1, 2)).toBe(3));\n",
        },
        red: {
          'test/sub.test.js':
            "const m = require('../src/add');\ntest('subtracts', () => expect(m.sub?.(3, 1)).toBe(2));\n",
        },
        testCmd: 'npx jest',
        prepare: linkNodeModules,
      };
    case 'pytest':
      return {
        files: {
          '.gitignore': '.venv/\n__pycache__/\n.pytest_cache/\n',
          'calc.py': 'def add(a, b):\n    return a + b\n',
          'tests/test_add.py': 'from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n',
          'pytest.ini': '[pytest]\npythonpath = .\n',
        },
        red: { 'tests/test_sub.py': 'import calc\n\n\ndef test_sub():\n    assert calc.sub(3, 1) == 2\n' },
        testCmd: '.venv/bin/python -m pytest -q',
        prepare: (repo) =>
          execFileSync('python3', ['-m', 'venv', '--system-site-packages', '--without-pip', join(repo, '.venv')]),
      };
    case 'go':
      return {
        files: {
          'go.mod': 'module example.com/calc\n\ngo 1.19\n',
          'calc.go': 'package calc\n\nfunc Add(a, b int) int { return a + b }\n',
          'calc_test.go':
            'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("add")\n\t}\n}\n',
        },
        red: {
          'sub_test.go':
            'package calc\n\nimport "testing"\n\nfunc TestSub(t *testing.T) {\n\tif Sub(3, 1) != 2 {\n\t\tt.Fatal("sub")\n\t}\n}\n',
        },
        testCmd: 'go test ./...',
      };
    case 'cargo':
      return {
        files: {
          '.gitignore': 'target/\nCargo.lock\n',
          'Cargo.toml': '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
          'src/lib.rs':
            'pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(1, 2), 3);\n    }\n}\n',
        },
        red: { 'tests/sub.rs': '#[test]\nfn subtracts() {\n    assert_eq!(calc::add(3, -1), 3);\n}\n' },
        testCmd: `${rustupEnv()}cargo test -q`,
      };
  }
}

/** The runners' node_modules as the project's own folder (hard links of the cache, or a copy where links cannot go). */
function linkNodeModules(repo: string): void {
  const from = npmModules();
  try {
    execFileSync('cp', ['-al', from, join(repo, 'node_modules')], { stdio: 'ignore' });
  } catch {
    rmSync(join(repo, 'node_modules'), { recursive: true, force: true });
    execFileSync('cp', ['-a', from, join(repo, 'node_modules')]);
  }
}

function writeAll(repo: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
}

/** A project of `runner` at `repo` (made, or filled when it is a repository already), committed; its test command. */
export function makeProject(runner: Runner, repo: string): string {
  const { files, testCmd, prepare } = shape(runner);
  mkdirSync(repo, { recursive: true });
  if (!existsSync(join(repo, '.git'))) {
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'config', 'user.name', 'Leap Test');
    git(repo, 'config', 'user.email', 'leap@test.invalid');
  }
  writeAll(repo, files);
  prepare?.(repo);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', `a ${runner} project`);
  return testCmd;
}

/** Commit a failing test (red) to the project of `runner` at `repo`; its path. */
export function commitRed(runner: Runner, repo: string): string[] {
  const { red } = shape(runner);
  writeAll(repo, red);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'red: subtracts');
  return Object.keys(red);
}
