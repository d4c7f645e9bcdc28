// Which test files belong to the step being verified.
import { UsageError, orElse, readFileIfExists, splitNul } from '@leap/core';
import { gitStdout } from './git.js';
import { matchGlobs, testFilePredicate } from './test-files.js';
import type { TestCounts } from './test-report.js';
import type { Phase } from './verify-prompt.js';

/** `tests-option`: --tests; `red-commit`: changed by HEAD; `red-verdict`: the red verdict's; `conventions`: all. */
type Source = 'tests-option' | 'red-commit' | 'red-verdict' | 'conventions';
export type StepTests = { files: string[]; source: Source; redCommit: string | null };
type StepTestsOptions = { phase: Phase; repo: string; step: string; issue: number | null; eventsFile: string };

/** `--tests` first; red: test files HEAD added or changed; else the red verdict's tests; else every test file. */
type Globs = Partial<Record<'globs' | 'testFiles', readonly string[]>>;
export function findStepTests(options: StepTestsOptions & Globs): StepTests {
  const { phase, repo } = options;
  const isTest = testFilePredicate(options.testFiles);
  if (options.globs !== undefined && options.globs.length > 0) {
    const files = matchGlobs(listFiles(repo), options.globs);
    const globs = options.globs.map((g) => JSON.stringify(g)).join(', ');
    if (files.length === 0) throw new UsageError(`--tests ${globs} matched no file in ${repo}`);
    const redCommit = phase === 'red' ? gitStdout(repo, ['rev-parse', 'HEAD']).trim() : null;
    return { files, source: 'tests-option', redCommit };
  }
  if (phase === 'red') {
    const show = ['show', '--no-renames', '--format=%H%x00', '--name-only', '-z', '--diff-filter=AM', 'HEAD'];
    const [sha, ...changed] = splitNul(gitStdout(repo, show).replace(/\0\n/, '\0'));
    return { files: changed.filter(isTest), source: 'red-commit', redCommit: sha ?? null };
  }
  const red = findRedVerdict(options.eventsFile, options.step, options.issue);
  if (red !== null && red.tests.length > 0) return { files: red.tests, source: 'red-verdict', redCommit: red.commit };
  return { files: listFiles(repo).filter(isTest), source: 'conventions', redCommit: red?.commit ?? null };
}

export function listFiles(repo: string): string[] {
  return [...new Set(splitNul(gitStdout(repo, ['ls-files', '-z', '--cached', '--others', '--exclude-standard'])))];
}

/** The last PASS of `phase` for `step` that recorded its commit and tests, read without the schema (a hot path). */
export function findRedVerdict(eventsFile: string, step: string, issue: number | null, phase = 'red') {
  for (const line of (readFileIfExists(eventsFile) ?? '').split('\n').reverse()) {
    if (!line.includes('"verdict"') || !line.includes(`"${phase}"`)) continue;
    const e = orElse(() => JSON.parse(line) as Record<string, unknown>, null);
    if (e?.event !== 'verdict' || e.phase !== phase || e.verdict !== 'PASS' || e.step !== step) continue;
    if (issue !== null && typeof e.issue === 'number' && e.issue !== issue) continue;
    if (typeof e.commit !== 'string' || !Array.isArray(e.tests) || !e.tests.every((t) => typeof t === 'string'))
      continue;
    return { commit: e.commit, tests: e.tests as string[], counts: (e.counts as TestCounts | undefined) ?? null };
  }
  return null;
}
