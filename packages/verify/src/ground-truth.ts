// Ground truth: the verifier runs the test command itself before any agent is asked.
import { dirname, join } from 'node:path';
import { readEventContext, runGitSync, statePaths, orElse } from '@leap/core';
import { proveTestsRun } from './canary.js';
import { PROJECT_CONFIG_FILE, blobText, changedSince, codeMoves, configChanged } from './cheat-checks.js';
import { isRunnerFile, markersAdded, testsChanged, type PhaseChanges } from './cheat-checks.js';
import { flakyReason, knownFlaky, rerun } from './flaky.js';
import { gitOrNull, gitStdout, splitNul } from './git.js';
import type { Phase } from './phase.js';
import { findRedVerdict } from './red-verdict.js';
import { topLevelName, withScratchTree } from './scratch-tree.js';
import type { StepTests } from './step-tests.js';
import type { SandboxChoice } from './leaf-sandbox.js';
import { runSuite } from './run-suite.js';
import { isTestFile, testFilePredicate } from './test-files.js';
import { hasInlineTests, splitTestItems } from './test-items.js';
import { failedTests, readCounts, runCaptured, type SuiteRun, type TestCounts } from './test-report.js';

export interface GroundTruth {
  ok: boolean;
  reason: string;
  counts?: TestCounts;
  /** What the verdict must say beside an agent's reason: a test file of a language without a canary. */
  note?: string;
  /** Not ok: the tests that failed the first run and passed the second (the verdict `flaky`). */
  flaky?: string[];
}

export interface GroundTruthOptions {
  phase: Phase;
  repo: string;
  stateDir: string;
  testCmd: string;
  tests: StepTests;
  base?: string;
  head?: string;
  env: NodeJS.ProcessEnv;
  suiteLog?: string;
  /** Test globs beside the conventions; in such a file with code too (Rust's `src/*.rs`), only `#[cfg(test)]` items. */
  testFiles?: readonly string[];
  /** Tree hashes whose suite passed in this run: red's set-aside run is skipped when its copy would be one of them. */
  passedTrees?: readonly string[];
  sandbox?: SandboxChoice | null;
  /** The step's ledger line: a runner's file it names may change, and its phases' verdicts are read by it. */
  step?: string;
}

/** CONTRACT section 9: red fails, passes without its tests; green, refactor: no cheat, pass, canary, no fewer tests. */
export async function checkGroundTruth(options: GroundTruthOptions): Promise<GroundTruth> {
  return options.phase === 'red' ? checkRed(options) : checkPassing(options);
}

async function checkRed(options: GroundTruthOptions): Promise<GroundTruth> {
  const { repo, tests } = options;
  const files = tests.files.join(', ');
  if (tests.files.length === 0) return reject('the red commit (HEAD) adds or changes no test file');
  const red = options.head ?? 'HEAD';
  const code = (commit: string, path: string) => splitTestItems(blobText(repo, commit, path)).code;
  const inline = (path: string) => hasInlineTests(path, isTestFile(path));
  const mixed = tests.files.filter((path) => inline(path) && code(`${red}^`, path) !== code(red, path));
  const only = 'a red may add or change only their #[cfg(test)] items';
  if (mixed.length > 0)
    return reject(`the red commit changes code outside the test items of ${mixed.join(', ')}: ${only}`);
  const config = configChanged(phaseChanges(options, `${red}^`, [PROJECT_CONFIG_FILE]));
  if (config !== null) return reject(config);
  const first = await runCaptured(options, repo);
  if (first.code === 0) return reject('the suite passes with the new tests; a red test must fail');
  const counted = withCounts(readCounts(first.output));
  const skip = [topLevelName(repo, options.stateDir)].filter((n): n is string => n !== null);
  const fails = 'the suite fails with the new tests and';
  const already = `${fails} passed without them (${files}): the tree before them was run already`;
  if (ranAlready(options, red, skip)) return { ok: true, reason: already, ...counted };
  // Its own cargo target: a shared one's fingerprints (relative paths, mtimes) reuse a binary without the new tests.
  const cargo = (dir: string) => ({ ...options.env, CARGO_TARGET_DIR: join(dirname(dir), 'cargo-target') });
  const inCopy = (dir: string) => runSuite({ ...options, env: cargo(dir) }, dir);
  const alone = `so the failure is not the new tests' alone`;
  if ((await withScratchTree(repo, red, skip, inCopy, tests.files)) !== 0)
    return reject(`the suite still fails with the new test files set aside (${files}), ${alone}`);
  return { ok: true, reason: `${fails} passes without them (${files})`, ...counted };
}

async function checkPassing(options: GroundTruthOptions): Promise<GroundTruth> {
  const { phase, repo, tests } = options;
  const base = phase === 'refactor' ? (options.base as string) : tests.redCommit;
  const changes = base === null ? null : phaseChanges(options, base);
  const what =
    phase === 'refactor'
      ? `test files changed since the base commit ${base}`
      : `the step's tests changed since their red commit ${base}`;
  const moved = changes === null ? null : movesSeen(changes, tests.files, what);
  if (moved !== null) return reject(moved);
  const head = options.head ?? gitStdout(repo, ['rev-parse', 'HEAD']).trim();
  const [main, proof] = await Promise.all([runCaptured(options, repo), proveTestsRun(options, tests.files, head)]);
  const { run, flaky } = main.code === 0 ? { run: main, flaky: [] } : await runAgain(options, main);
  if (run.code !== 0) return reject('the suite fails');
  if (proof.notRun.length > 0) return reject(notRunReason(options, proof.notRun, changes));
  const counts = readCounts(run.output);
  const fell = fewerTests(options, counts);
  if (fell !== null) return reject(fell);
  if (flaky.length > 0) return { ok: false, reason: flakyReason(flaky), flaky };
  const passes =
    phase === 'green' ? 'the suite passes' : 'the suite passes and no test file changed since the base commit';
  if (proof.noCanary.length === 0) return { ok: true, reason: passes, ...withCounts(counts) };
  const note = `no canary for the language of ${proof.noCanary.join(', ')}: that its tests ran is not proven`;
  return { ok: true, reason: `${passes}; ${note}`, ...withCounts(counts), note };
}

function reject(reason: string): GroundTruth {
  return { ok: false, reason: `ground truth: ${reason}` };
}

function withCounts(counts: TestCounts | null): { counts?: TestCounts } {
  return counts === null ? {} : { counts };
}

function phaseChanges(options: GroundTruthOptions, base: string, paths?: readonly string[]): PhaseChanges {
  // A root red commit has no parent: nothing it changed can be told from what was there.
  const changed = orElse(() => changedSince(options.repo, base, paths, options.head), []);
  const isTest = testFilePredicate(options.testFiles);
  return { repo: options.repo, base, changed, isTest, testCmd: options.testCmd, step: options.step };
}

function movesSeen(changes: PhaseChanges, stepFiles: readonly string[], testsWhat: string): string | null {
  const config = configChanged(changes);
  if (config !== null) return config;
  const tests = changes.changed.filter((path) => changes.isTest(path) || stepFiles.includes(path));
  const touched = testsChanged(changes.repo, changes.base, tests);
  if (touched.length > 0) {
    const markers = markersAdded(changes, touched);
    return `${testsWhat}: ${touched.join(', ')}${markers.length === 0 ? '' : ` (${markers.join('; ')})`}`;
  }
  const moves = codeMoves(changes);
  if (moves.length === 0) return null;
  const may = 'a step whose ledger line names the file may change it';
  return `${moves.join('; ')}: that can make fewer tests run or assert nothing; ${may}`;
}

// A main run that failed naming tests is run once more: those it then passes are flaky, but the baseline's.
async function runAgain(options: GroundTruthOptions, failed: SuiteRun): Promise<{ run: SuiteRun; flaky: string[] }> {
  const names = failedTests(failed.output);
  if (names.length === 0) return { run: failed, flaky: [] };
  const again = await rerun(options, options.repo);
  const known = knownFlaky(options.stateDir, readEventContext(options.stateDir, options.env).issue);
  return { run: again, flaky: again.code === 0 ? names.filter((name) => !known.has(name)) : [] };
}

// The canary's REJECT: the files not run, and what the phase changed outside the tests, the runner's files first.
function notRunReason(options: GroundTruthOptions, files: readonly string[], changes: PhaseChanges | null): string {
  const them = files.length === 1 ? 'it' : 'them';
  const outside = (changes?.changed ?? []).filter((path) => !changes?.isTest(path));
  outside.sort((a, b) => Number(isRunnerFile(b)) - Number(isRunnerFile(a)));
  const shown = outside.slice(0, 8).join(', ') + (outside.length > 8 ? `, and ${outside.length - 8} more` : '');
  const why =
    outside.length === 0
      ? 'nothing it changed outside the tests explains it: ' +
        `the test command (\`${options.testCmd}\`) does not run ${them}`
      : `what the ${options.phase} changed that could explain it: ${shown}`;
  const added = `the suite passes with a canary that must fail added to ${files.join(', ')}`;
  return `${added}, so the test command does not run ${them}; ${why}`;
}

// Fewer tests ran, or more were skipped, than in the phase before (green's red, refactor's green), both counted.
function fewerTests(options: GroundTruthOptions, now: TestCounts | null): string | null {
  const phase = options.phase === 'green' ? 'red' : 'green';
  const issue = readEventContext(options.stateDir, options.env).issue;
  const before = findRedVerdict(statePaths(options.stateDir).events, options.step ?? '', issue, phase)?.counts ?? null;
  if (before === null || now === null) return null;
  if (now.ran < before.ran) return `fewer tests ran than at ${phase}: ${before.ran}, now ${now.ran}`;
  if (now.skipped > before.skipped)
    return `more tests were skipped than at ${phase}: ${before.skipped}, now ${now.skipped}`;
  return null;
}

// The red commit changes only the step's tests (and the state folder), and its parent's tree passed already.
function ranAlready({ repo, tests, passedTrees: passed = [] }: GroundTruthOptions, red: string, skip: string[]) {
  if (passed.length === 0) return false;
  const outside = (path: string) => !skip.some((name) => path === name || path.startsWith(`${name}/`));
  const changed = gitOrNull(repo, ['diff', '--no-renames', '--name-only', '-z', `${red}^`, red]);
  if (changed === null || splitNul(changed).some((path) => outside(path) && !tests.files.includes(path))) return false;
  const exclude = skip.map((name) => `:(exclude,literal)${name}`);
  const same = (tree: string) => ['diff', '--quiet', '--no-renames', tree, `${red}^`, '--', '.', ...exclude];
  return passed.some((tree) => runGitSync(same(tree), { cwd: repo, allowFailure: true }).code === 0);
}
