// Ground truth: the verifier runs the test command itself before any agent is asked.
import { type EventContext, appendEvent, createEvent, readEventContext } from '@leap/core';
import { readFileIfExists, runGitSync, splitNul, statePaths, orElse } from '@leap/core';
import { notAlone, proveTestsRun, withStepCopy } from './canary.js';
import { PROJECT_CONFIG_FILE, blobText, changedSince, codeMoves, configChanged } from './cheat-checks.js';
import { isRunnerFile, markersAdded, testsChanged, type PhaseChanges } from './cheat-checks.js';
import { gitOrNull, gitStdout } from './git.js';
import type { Phase } from './verify-prompt.js';
import { findRedVerdict, type StepTests } from './step-tests.js';
import { topLevelName } from './scratch-tree.js';
import type { SandboxChoice } from './leaf-sandbox.js';
import { runSuite, type SuiteOptions } from './run-suite.js';
import { hasInlineTests, isTestFile, splitTestItems, testFilePredicate } from './test-files.js';
import { failedTests, readCounts, runCaptured, type SuiteRun, type TestCounts } from './test-report.js';

/** `note`: what the verdict must add to an agent's reason; `flaky`: tests that failed once and passed once. */
type GroundTruth = { ok: boolean; reason: string; counts?: TestCounts; note?: string; flaky?: string[] };
type TruthRun = { phase: Phase; repo: string; testCmd: string; tests: StepTests; env: NodeJS.ProcessEnv };
type TruthAt = { stateDir: string; base?: string; head?: string; suiteLog?: string; sandbox?: SandboxChoice | null };
export interface GroundTruthOptions extends TruthRun, TruthAt {
  /** Test globs beside the conventions; in such a file with code too (Rust's `src/*.rs`), only `#[cfg(test)]` items. */
  testFiles?: readonly string[];
  /** Tree hashes whose suite passed in this run: red's set-aside run is skipped when its copy would be one of them. */
  passedTrees?: readonly string[];
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
  const fails = 'the suite fails with the new tests and';
  const already = `${fails} passed without them (${files}): the tree before them was run already`;
  if (ranAlready(options, red)) return { ok: true, reason: already, ...counted };
  const inCopy = (dir: string, env: NodeJS.ProcessEnv) => runSuite({ ...options, env }, dir);
  const alone = `so the failure is not the new tests' alone`;
  if ((await withStepCopy(options, red, tests.files, 'set aside', inCopy)) !== 0)
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
  if (run.code !== 0) return reject(['the suite fails', some(failedTests(run.output), 5)].filter(Boolean).join(': '));
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

async function runAgain(options: GroundTruthOptions, failed: SuiteRun): Promise<{ run: SuiteRun; flaky: string[] }> {
  const names = failedTests(failed.output);
  if (names.length === 0) return { run: failed, flaky: [] };
  const again = await rerun(options, options.repo);
  const known = knownFlaky(options.stateDir, readEventContext(options.stateDir, options.env).issue);
  return { run: again, flaky: again.code === 0 ? names.filter((name) => !known.has(name)) : [] };
}

const some = (items: readonly string[], max: number) =>
  items.slice(0, max).join(', ') + (items.length > max ? `, and ${items.length - max} more` : '');

function notRunReason(options: GroundTruthOptions, files: readonly string[], changes: PhaseChanges | null): string {
  const them = files.length === 1 ? 'it' : 'them';
  const outside = (changes?.changed ?? []).filter((path) => !changes?.isTest(path));
  outside.sort((a, b) => Number(isRunnerFile(b)) - Number(isRunnerFile(a)));
  const why =
    outside.length === 0
      ? 'nothing it changed outside the tests explains it: ' +
        `the test command (\`${options.testCmd}\`) does not run ${them}`
      : `what the ${options.phase} changed that could explain it: ${some(outside, 8)}`;
  const added = `the suite passes with a canary that must fail added to ${files.join(', ')}`;
  return `${added}, so the test command does not run ${them}; ${why}`;
}

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
function ranAlready({ repo, tests, stateDir, passedTrees: passed = [] }: GroundTruthOptions, red: string) {
  if (passed.length === 0) return false;
  const skip = [topLevelName(repo, stateDir)].filter((n): n is string => n !== null);
  const outside = (path: string) => !skip.some((name) => path === name || path.startsWith(`${name}/`));
  const changed = gitOrNull(repo, ['diff', '--no-renames', '--name-only', '-z', `${red}^`, red]);
  if (changed === null || splitNul(changed).some((path) => outside(path) && !tests.files.includes(path))) return false;
  const exclude = skip.map((name) => `:(exclude,literal)${name}`);
  const same = (tree: string) => ['diff', '--quiet', '--no-renames', tree, `${red}^`, '--', '.', ...exclude];
  return passed.some((tree) => runGitSync(same(tree), { cwd: repo, allowFailure: true }).code === 0);
}

// Flaky tests: passing once and failing once on one tree, run again in the same order (docs/decisions/flaky-order.md).
export const UNNAMED = "(unnamed: the runner's output names no failed test)";
const ONCE = 'passed once and failed once on the same tree';

export function flakyReason(tests: readonly string[]): string {
  return `ground truth: flaky: ${tests.join(', ')} ${ONCE}; a flaky test is never ticked`;
}

function rerun(options: SuiteOptions, cwd: string): Promise<SuiteRun> {
  return runCaptured({ ...options, purpose: 'rerun' }, cwd);
}

// Green's second run: the step's test files alone in a copy, or the whole suite when that run names no failed test.
export async function rerunStep(options: GroundTruthOptions, files: readonly string[], head: string) {
  if (files.length > 0 && !notAlone.has(options.testCmd)) {
    const alone = await withStepCopy(options, head, files, 'alone', (dir, env) => rerun({ ...options, env }, dir));
    if (alone.code === 0 || failedTests(alone.output).some((name) => !name.startsWith('/'))) return alone;
    notAlone.add(options.testCmd);
  }
  return rerun(options, options.repo);
}

export function namedFailures(run: SuiteRun): string[] {
  const names = failedTests(run.output);
  return names.length === 0 ? [UNNAMED] : names;
}

export function knownFlaky(stateDir: string, issue: number | null): Set<string> {
  const known = new Set<string>();
  for (const line of (readFileIfExists(statePaths(stateDir).events) ?? '').split('\n')) {
    const e = line.includes('"flaky"') ? orElse(() => JSON.parse(line) as Record<string, unknown>, null) : null;
    const ours = e?.event === 'verdict' && e.phase === 'baseline' && e.issue === issue;
    if (ours && e.verdict === 'flaky' && typeof e.test === 'string') known.add(e.test);
  }
  return known;
}

export function recordFlaky(
  stateDir: string,
  context: EventContext,
  phase: Phase | 'baseline',
  tests: readonly string[],
  fields: { commit?: string } = {},
): void {
  for (const test of tests) {
    const verdict = { phase, verdict: 'flaky' as const, reason: `${test} ${ONCE}`, code: 1, test, ...fields };
    appendEvent(statePaths(stateDir).events, createEvent('verdict', verdict, context));
  }
}

// A test failing in one of the two baseline runs only is flaky, recorded; the baseline passes when one run did.
export async function runBaselineTwice(options: SuiteOptions & { stateDir: string }, cwd: string) {
  const first = await runCaptured({ ...options, phase: 'baseline' }, cwd);
  const second = await rerun({ ...options, phase: 'baseline' }, cwd);
  const failedOnce = (a: SuiteRun, b: SuiteRun) =>
    a.code === 0 ? [] : namedFailures(a).filter((t) => b.code === 0 || !failedTests(b.output).includes(t));
  const flaky = [...new Set([...failedOnce(first, second), ...failedOnce(second, first)])];
  recordFlaky(options.stateDir, readEventContext(options.stateDir, options.env), 'baseline', flaky);
  const passed = first.code === 0 || second.code === 0;
  return { run: passed ? { ...first, code: 0 } : first, flaky };
}
