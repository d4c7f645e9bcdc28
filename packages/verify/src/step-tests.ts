// Which test files belong to the step being verified.
import { UsageError } from '@leap/core';
import { gitStdout, splitNul } from './git.js';
import type { Phase } from './phase.js';
import { findRedVerdict } from './red-verdict.js';
import { matchGlobs, testFilePredicate } from './test-files.js';

export interface StepTests {
  files: string[];
  /** `tests-option`: --tests; `red-commit`: changed by HEAD; `red-verdict`: the red verdict's; `conventions`: all. */
  source: 'tests-option' | 'red-commit' | 'red-verdict' | 'conventions';
  redCommit: string | null;
}

export interface StepTestsOptions {
  phase: Phase;
  repo: string;
  step: string;
  issue: number | null;
  eventsFile: string;
  globs?: readonly string[];
  testFiles?: readonly string[];
}

/** `--tests` first; red: test files HEAD added or changed; else the red verdict's tests; else every test file. */
export function findStepTests(options: StepTestsOptions): StepTests {
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
