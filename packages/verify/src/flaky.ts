// Flaky tests: passing once and failing once on one tree, run again in the same order (docs/decisions/flaky-order.md).
import { appendEvent, createEvent, readEventContext, readFileIfExists, statePaths, orElse } from '@leap/core';
import type { EventContext } from '@leap/core';
import type { GroundTruthOptions } from './ground-truth.js';
import type { Phase } from './phase.js';
import { notAlone, withStepCopy } from './step-copy.js';
import type { runSuite } from './run-suite.js';
import { failedTests, runCaptured, type SuiteRun } from './test-report.js';

type SuiteOptions = Parameters<typeof runSuite>[0];

export const UNNAMED = "(unnamed: the runner's output names no failed test)";

const ONCE = 'passed once and failed once on the same tree';

export function flakyReason(tests: readonly string[]): string {
  return `ground truth: flaky: ${tests.join(', ')} ${ONCE}; a flaky test is never ticked`;
}

export function rerun(options: SuiteOptions, cwd: string): Promise<SuiteRun> {
  return runCaptured({ ...options, purpose: 'rerun' }, cwd);
}

// Green's second run: the step's test files alone in a copy, or the whole suite when that run names no failed test.
export async function rerunStep(options: GroundTruthOptions, files: readonly string[], head: string) {
  if (files.length > 0 && !notAlone.has(options.testCmd)) {
    const alone = await withStepCopy(options, head, files, true, (dir, env) => rerun({ ...options, env }, dir));
    if (alone.code === 0 || failedTests(alone.output).some((name) => !name.startsWith('/'))) return alone;
    notAlone.add(options.testCmd);
  }
  return rerun(options, options.repo);
}

export function namedFailures(run: SuiteRun): string[] {
  const names = failedTests(run.output);
  return names.length === 0 ? [UNNAMED] : names;
}

/** The flaky tests of the baseline the event log records for `issue`: never blamed on a step. */
export function knownFlaky(stateDir: string, issue: number | null): Set<string> {
  const known = new Set<string>();
  for (const line of (readFileIfExists(statePaths(stateDir).events) ?? '').split('\n')) {
    // A torn last line after a crash is passed over.
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
