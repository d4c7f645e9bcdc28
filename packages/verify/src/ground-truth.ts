// Ground truth: the verifier runs the test command itself before any agent is asked.
import { closeSync, openSync, writeSync } from 'node:fs';
import { constants } from 'node:os';
import { writeFd } from '@leap/core';
import { runGit, splitNul } from './git.js';
import { childProcess } from './lazy-builtins.js';
import type { Phase } from './phase.js';
import { topLevelName, withScratchTree } from './scratch-tree.js';
import type { StepTests } from './step-tests.js';
import { isTestFile } from './test-files.js';

/** The outcome: ok, or the reason the phase is rejected. */
export interface GroundTruth {
  ok: boolean;
  reason: string;
}

/** What checkGroundTruth needs. */
export interface GroundTruthOptions {
  phase: Phase;
  repo: string;
  stateDir: string;
  /** VERI_TEST_CMD: the user's command line, run with `bash -c`. */
  testCmd: string;
  tests: StepTests;
  /** Refactor: the base commit. */
  base?: string;
  /** HEAD's commit, when known: a comparison with it takes one `git status` instead of a diff and a listing. */
  head?: string;
  env: NodeJS.ProcessEnv;
  /** A file the suite's output is appended to instead of our stderr (a conductor keeps it out of its narration). */
  suiteLog?: string;
}

/**
 * Red: the suite fails, and passes again with the step's test files set aside (in a scratch copy of
 * HEAD's tree: added files removed, changed ones restored from HEAD's parent). Green: the suite passes,
 * and the step's tests are unchanged since their red commit. Refactor: no test file changed since the
 * base, and the suite passes. The suite's output goes to stderr.
 */
export async function checkGroundTruth(options: GroundTruthOptions): Promise<GroundTruth> {
  const { phase, repo, tests } = options;
  if (phase === 'red') {
    if (tests.files.length === 0) return reject('the red commit (HEAD) adds or changes no test file');
    if ((await runSuite(options, repo)) === 0) return reject('the suite passes with the new tests; a red test must fail');
    const skip = [topLevelName(repo, options.stateDir)].filter((n): n is string => n !== null);
    // The red commit as findStepTests read it (HEAD's sha), so the copy need not ask git for it again.
    const code = await withScratchTree(repo, options.head ?? 'HEAD', skip, async (dir) => runSuite(options, dir), tests.files);
    if (code !== 0) return reject(`the suite still fails with the new test files set aside (${tests.files.join(', ')}), so the failure is not the new tests' alone`);
    return { ok: true, reason: `the suite fails with the new tests and passes without them (${tests.files.join(', ')})` };
  }
  if (phase === 'refactor') {
    const base = options.base as string;
    const changed = changedSince(repo, base, undefined, options.head).filter((path) => isTestFile(path) || tests.files.includes(path));
    if (changed.length > 0) return reject(`test files changed since the base commit ${base}: ${changed.join(', ')}`);
  }
  if ((await runSuite(options, repo)) !== 0) return reject('the suite fails');
  if (phase === 'green' && tests.redCommit !== null && tests.files.length > 0) {
    const changed = changedSince(repo, tests.redCommit, tests.files, options.head);
    if (changed.length > 0) return reject(`the step's tests changed since their red commit ${tests.redCommit}: ${changed.join(', ')}`);
  }
  return { ok: true, reason: phase === 'green' ? 'the suite passes' : 'the suite passes and no test file changed since the base commit' };
}

function reject(reason: string): GroundTruth {
  return { ok: false, reason: `ground truth: ${reason}` };
}

/**
 * Run the test command with bash in `cwd`; its output goes to our stderr, or is appended to `suiteLog`.
 * Resolves to its exit code (a signal is 128+N).
 */
export function runSuite(options: Pick<GroundTruthOptions, 'testCmd' | 'env' | 'suiteLog'>, cwd: string): Promise<number> {
  const out = options.suiteLog === undefined ? 2 : openSync(options.suiteLog, 'a');
  const line = `leap-verify: ground truth: running VERI_TEST_CMD in ${cwd}\n`;
  if (out === 2) writeFd(2, line);
  else writeSync(out, line);
  return new Promise<number>((resolve) => {
    const child = childProcess().spawn('bash', ['-c', options.testCmd], { cwd, env: options.env, stdio: ['ignore', out, out] });
    child.on('error', () => resolve(127));
    child.on('close', (code, signal) => resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal])));
  }).finally(() => {
    if (out !== 2) closeSync(out);
  });
}

// Tracked files that differ from `commit` in the work tree, and untracked ones; optionally only `paths`. When
// `commit` is HEAD, one `git status` says both (what it adds, a staged change the work tree has undone since,
// is a change too).
function changedSince(repo: string, commit: string, paths?: readonly string[], head?: string): string[] {
  const limit = paths === undefined ? [] : ['--', ...paths];
  if (commit === head) {
    const status = runGit(repo, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', ...limit]);
    return [...new Set(splitNul(status).map((entry) => entry.slice(3)))];
  }
  const tracked = splitNul(runGit(repo, ['diff', '--no-renames', '--name-only', '-z', commit, ...limit]));
  const untracked = splitNul(runGit(repo, ['ls-files', '-z', '--others', '--exclude-standard', ...limit]));
  return [...new Set([...tracked, ...untracked])];
}
