// Real small projects of other languages through a whole run, each with its own plain test command: a Rust
// crate (cargo, no dependencies) whose step adds an inline `#[cfg(test)]` module to src/lib.rs (named by
// --tests), and a pytest project. The developer is the command agent of fixtures/dev-agent.mjs applying real
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
    throw new Error(`${command} ${args.join(' ')} does not run: these tests build a real project (Debian: apt-get install ${debian})`);
  }
}

const issue = (criterion: string) => `# A real project\n\nOne behaviour.\n\n## Acceptance criteria\n\n- [ ] ${criterion}\n`;

const RUST_CODE = 'pub fn double(x: i32) -> i32 {\n    x\n}\n';
const RUST_TESTS = '\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn doubles() {\n        assert_eq!(double(3), 6);\n    }\n}\n';

langs('a Rust crate: an inline test module is a red; a green that weakens it is refused with the file named; the code around it may change', async () => {
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
      refactor: { path: 'src/lib.rs', content: `/// Twice \`x\`.\n${RUST_CODE.replace('    x\n', '    x + x\n')}${RUST_TESTS}` },
    },
  });
  const env = cleanEnv({ CARGO_TARGET_DIR: join(makeTempDir('leap-cargo-'), 'target'), CARGO_NET_OFFLINE: 'true' });
  const lines: string[] = [];
  const result = await runTdd({
    cwd: repo, issue: 1, testCmd: 'cargo test --quiet', tests: ['src/**/*.rs'], planFile: planFile([TITLE]), developer: 'dev', verifier: 'ver', agentsFile: agents.file, env,
    progress: (line) => lines.push(line),
  });
  assert.is(result.code, 0, `${JSON.stringify(result.bail)}\n${lines.join('\n')}`);
  assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
  assert.equal(result.verdicts.map((v) => `${v.phase} ${v.verdict}`), ['red PASS', 'green REJECT', 'green PASS', 'refactor PASS']);
  assert.match(result.verdicts[1]?.reason ?? '', /test files present at the red commit [0-9a-f]{12}: src\/lib\.rs/);
  // The red commit is the test module alone; the tests in the end are the red commit's, byte for byte.
  assert.is(git(repo, 'show', 'HEAD~2:src/lib.rs'), `${RUST_CODE}${RUST_TESTS}`);
  assert.ok(readFileSync(join(repo, 'src/lib.rs'), 'utf8').endsWith(RUST_TESTS));
  // A plain cargo test in the user's tree, with the user's cache, runs the test and passes.
  assert.match(execFileSync('cargo', ['test', '--quiet'], { cwd: repo, env, encoding: 'utf8' }), /1 passed/);
});

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
      red: { path: 'tests/test_add.py', content: 'import calc\n\n\ndef test_add_sums():\n    assert calc.add(2, 3) == 5\n' },
      green: { path: 'calc.py', content: 'def add(a, b):\n    return a + b\n' },
      refactor: { path: 'calc.py', content: '"""Arithmetic."""\n\n\ndef add(a, b):\n    """The sum of a and b."""\n    return a + b\n' },
    },
  });
  const env = cleanEnv({ PYTHONDONTWRITEBYTECODE: '1' });
  const result = await runTdd({ cwd: repo, issue: 1, testCmd: 'python3 -m pytest -q -p no:cacheprovider', planFile: planFile([TITLE]), developer: 'dev', verifier: 'ver', agentsFile: agents.file, env });
  assert.is(result.code, 0, JSON.stringify(result.bail));
  assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
  assert.equal(git(repo, 'show', '--format=', '--name-only', 'HEAD~2').trim(), 'tests/test_add.py');
  assert.match(execFileSync('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], { cwd: repo, env, encoding: 'utf8' }), /2 passed/);
});

langs.run();
