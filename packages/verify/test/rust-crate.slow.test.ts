// A real Rust crate (cargo, no dependencies) through ground truth: inline `#[cfg(test)]` tests in src/lib.rs
// named by a test glob, and an integration test in tests/. The red check's scratch copy builds into its own
// target folder, so the user's cargo cache stays right: a plain `cargo test` in the user's tree after the
// red check still runs (and fails on) the new test. One crate, one commit after another, for the whole file.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { checkGroundTruth, findStepTests, runSuite, rustTestItems, splitTestItems } from '../src/index.js';
import type { Phase, StepTests } from '../src/index.js';
import { verifyEnv } from './helpers.js';

const TEST_CMD = 'cargo test --quiet';
const GLOBS = ['src/**/*.rs'];

function cargoPresent(): void {
  try {
    execFileSync('cargo', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('cargo is not installed: these tests build a real crate (Debian: apt-get install cargo)');
  }
}

const CODE = [
  'pub fn double(x: i32) -> i32 {',
  '    x',
  '}',
  '',
  'pub fn triple(x: i32) -> i32 {',
  '    x',
  '}',
  '',
].join('\n');

const INLINE_TESTS = [
  '#[cfg(test)]',
  'mod tests {',
  '    use super::*;',
  '',
  '    // A brace in a comment } and in a string must not end the module.',
  '    #[test]',
  '    fn doubles() {',
  '        assert_eq!(double(3), 6, "{}", "}");',
  '    }',
  '}',
  '',
].join('\n');

function makeCrate(): string {
  return makeGitRepo({
    files: {
      '.gitignore': '/target\nCargo.lock\n.tdd/\n',
      'Cargo.toml': '[package]\nname = "adder"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
      'src/lib.rs': CODE,
    },
    prefix: 'leap-crate-',
  });
}

function commitAll(repo: string, message: string): string {
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', message);
  return git(repo, 'rev-parse', 'HEAD').trim();
}

// The verdict and its reason; cargo's counts (every `test result:` line summed) are checked once, below.
async function truth(repo: string, phase: Phase, env: NodeJS.ProcessEnv, tests: StepTests, base?: string) {
  const { counts: _counts, ...verdict } = await checkGroundTruth({
    phase,
    repo,
    stateDir: join(repo, '.tdd'),
    testCmd: TEST_CMD,
    tests,
    base,
    env,
    testFiles: GLOBS,
    suiteLog: join(makeTempDir(), 'suite.log'),
  });
  return verdict;
}

function redTests(repo: string): StepTests {
  return findStepTests({
    phase: 'red',
    repo,
    step: 's',
    issue: 1,
    eventsFile: join(repo, '.tdd', 'events.jsonl'),
    testFiles: GLOBS,
  });
}

const crate = suite('ground truth on a real Rust crate');
crate.after(cleanupTempDirs);

crate(
  "inline tests, then an integration test: red, green and refactor, and the user's own cargo test stays right",
  async () => {
    cargoPresent();
    const repo = makeCrate();
    // Step 1 builds into the crate's own target/ (ignored: the copy must not link it); step 2 into CARGO_TARGET_DIR.
    const inTree = verifyEnv({ CARGO_NET_OFFLINE: 'true' });
    delete inTree.CARGO_TARGET_DIR;
    const shared = { ...inTree, CARGO_TARGET_DIR: join(makeTempDir('leap-cargo-'), 'target') };
    const userSuite = (env: NodeJS.ProcessEnv) =>
      runSuite({ testCmd: TEST_CMD, env, suiteLog: join(makeTempDir(), 'user.log') }, repo);
    assert.is(await userSuite(inTree), 0, "the crate's baseline passes");

    // Red 1: only an inline test module is added to src/lib.rs.
    writeFileSync(join(repo, 'src/lib.rs'), `${CODE}${INLINE_TESTS}`);
    const red1 = commitAll(repo, 'red: double');
    const withoutGlobs = findStepTests({
      phase: 'red',
      repo,
      step: 's',
      issue: 1,
      eventsFile: join(repo, '.tdd', 'events.jsonl'),
    });
    assert.equal(withoutGlobs.files, [], 'without a glob naming src/*.rs, src/lib.rs is no test file');
    const tests1 = redTests(repo);
    assert.equal(tests1, { files: ['src/lib.rs'], source: 'red-commit', redCommit: red1 });
    assert.equal(await truth(repo, 'red', inTree, tests1), {
      ok: true,
      reason: 'the suite fails with the new tests and passes without them (src/lib.rs)',
    });
    const counted = await checkGroundTruth({
      phase: 'red',
      repo,
      stateDir: join(repo, '.tdd'),
      testCmd: TEST_CMD,
      tests: tests1,
      env: inTree,
      testFiles: GLOBS,
      suiteLog: join(makeTempDir(), 'suite.log'),
    });
    assert.equal(counted.counts, { ran: 1, skipped: 0 }, 'cargo test reports its counts');
    assert.is.not(
      await userSuite(inTree),
      0,
      "after the red check, the user's cargo test still runs the new inline test (and fails)",
    );

    // A red that changes the code around its tests too is refused before any build.
    writeFileSync(
      join(repo, 'src/lib.rs'),
      `${CODE.replace('    x\n}\n\npub fn triple', '    x * 2\n}\n\npub fn triple')}${INLINE_TESTS}`,
    );
    git(repo, 'commit', '-q', '--amend', '-am', 'red: double, with its implementation');
    const mixed = await truth(repo, 'red', inTree, redTests(repo));
    assert.equal(mixed, {
      ok: false,
      reason:
        'ground truth: the red commit changes code outside the test items of src/lib.rs: a red may add or change only their #[cfg(test)] items',
    });
    git(repo, 'reset', '-q', '--hard', red1);

    // Green 1: a green that weakens the inline test is refused with the file named; one that changes the code passes.
    const green1Tests: StepTests = { files: ['src/lib.rs'], source: 'red-verdict', redCommit: red1 };
    writeFileSync(join(repo, 'src/lib.rs'), `${CODE}${INLINE_TESTS.replace('double(3), 6', 'double(3), 3')}`);
    assert.equal(await truth(repo, 'green', inTree, green1Tests), {
      ok: false,
      reason: `ground truth: the step's tests changed since their red commit ${red1}: src/lib.rs`,
    });
    const green1Code = CODE.replace('    x\n}\n\npub fn triple', '    x * 2\n}\n\npub fn triple');
    writeFileSync(join(repo, 'src/lib.rs'), `${green1Code}${INLINE_TESTS}`);
    assert.equal(await truth(repo, 'green', inTree, green1Tests), { ok: true, reason: 'the suite passes' });
    const green1 = commitAll(repo, 'green: double');

    // Red 2: an integration test in tests/, built with a CARGO_TARGET_DIR the user's tree shares with nothing.
    assert.is(await userSuite(shared), 0);
    mkdirSync(join(repo, 'tests'));
    writeFileSync(
      join(repo, 'tests/triple.rs'),
      'use adder::triple;\n\n#[test]\nfn triples() {\n    assert_eq!(triple(2), 6);\n}\n',
    );
    const red2 = commitAll(repo, 'red: triple');
    const tests2 = redTests(repo);
    assert.equal(tests2.files, ['tests/triple.rs']);
    assert.equal(await truth(repo, 'red', shared, tests2), {
      ok: true,
      reason: 'the suite fails with the new tests and passes without them (tests/triple.rs)',
    });
    assert.is.not(
      await userSuite(shared),
      0,
      "after the red check, the user's cargo test (same CARGO_TARGET_DIR) still runs tests/triple.rs",
    );

    // Green 2, then a refactor of the code around the inline tests: both pass; a refactor editing them is refused.
    const green2Code = green1Code.replace(
      'pub fn triple(x: i32) -> i32 {\n    x\n}',
      'pub fn triple(x: i32) -> i32 {\n    x * 3\n}',
    );
    writeFileSync(join(repo, 'src/lib.rs'), `${green2Code}${INLINE_TESTS}`);
    assert.equal(await truth(repo, 'green', shared, { files: tests2.files, source: 'red-verdict', redCommit: red2 }), {
      ok: true,
      reason: 'the suite passes',
    });
    const green2 = commitAll(repo, 'green: triple');
    writeFileSync(
      join(repo, 'src/lib.rs'),
      `const FACTOR: i32 = 3;\n\n${green2Code.replace('x * 3', 'x * FACTOR')}${INLINE_TESTS}`,
    );
    assert.equal(await truth(repo, 'refactor', shared, tests2, green2), {
      ok: true,
      reason: 'the suite passes and no test file changed since the base commit',
    });
    const refactored = readFileSync(join(repo, 'src/lib.rs'), 'utf8');
    writeFileSync(join(repo, 'src/lib.rs'), refactored.replace('fn doubles()', 'fn doubles_renamed()'));
    assert.equal(await truth(repo, 'refactor', shared, tests2, green2), {
      ok: false,
      reason: `ground truth: test files changed since the base commit ${green2}: src/lib.rs`,
    });
    assert.ok(green1 !== green2);
  },
);

crate(
  'the test items of a Rust file: modules, declarations and test-only functions; comments, strings, raw strings and chars do not confuse them',
  () => {
    const text = [
      'use std::fmt;',
      '#[cfg(test)] mod helpers;',
      '/* #[cfg(test)] in a comment is no item */',
      'pub fn code() -> &\'static str { "#[cfg(test)] in a string { " }',
      'pub fn raw() -> &\'static str { r#"raw " } { "# }',
      "pub fn ch() -> char { '}' }",
      "pub fn life<'a>(x: &'a str) -> &'a str { x }",
      '#[cfg(test)]',
      '#[allow(dead_code)]',
      "fn only_in_tests() -> u8 { b'{' }",
      '#[cfg( test )]',
      'mod tests {',
      '    // } a brace in a comment',
      '    #[test] fn t() { let _ = vec![1, 2]; assert!(true, "{}", "}"); }',
      '}',
      'pub fn after() {}',
      '',
    ].join('\n');
    const items = rustTestItems(text).map(([start, end]) => text.slice(start, end));
    assert.equal(items, [
      '#[cfg(test)] mod helpers;',
      "#[cfg(test)]\n#[allow(dead_code)]\nfn only_in_tests() -> u8 { b'{' }",
      '#[cfg( test )]\nmod tests {\n    // } a brace in a comment\n    #[test] fn t() { let _ = vec![1, 2]; assert!(true, "{}", "}"); }\n}',
    ]);
    const { code } = splitTestItems(text);
    assert.match(code, 'pub fn after() {}');
    assert.not.match(code, 'only_in_tests');
    assert.equal(splitTestItems('pub fn x() {}\n'), { tests: '', code: 'pub fn x() {}' });
  },
);

crate.run();
