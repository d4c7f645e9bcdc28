// Ground truth: the verifier runs the test command itself before any agent is asked.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runGitSync } from '@leap/core';
import { gitStdout, splitNul } from './git.js';
import type { Phase } from './phase.js';
import { topLevelName, withScratchTree } from './scratch-tree.js';
import type { StepTests } from './step-tests.js';
import type { SandboxChoice } from './leaf-sandbox.js';
import { runSuite } from './run-suite.js';
import { isTestFile, testFilePredicate } from './test-files.js';
import { hasInlineTests, splitTestItems } from './test-items.js';

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
  /**
   * Globs of files that hold tests beside the conventions (a conductor's `--tests`). In such a file that the
   * conventions do not name and that holds code too (Rust's `src/*.rs`), only its `#[cfg(test)]` items are tests.
   */
  testFiles?: readonly string[];
  /**
   * Trees (`git write-tree` or `COMMIT^{tree}` hashes) whose suite passed already in the caller's run: red's
   * check with its tests set aside is not run again when the copy would be one of them (outside the state
   * folder), as a conductor's red is the previous step's refactor tree plus the new tests.
   */
  passedTrees?: readonly string[];
  /** Run each suite in a sandbox, a writer of the tree it runs on (chooseSandbox decides); absent or bwrap null: none. */
  sandbox?: SandboxChoice | null;
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
    const red = options.head ?? 'HEAD';
    const mixed = tests.files.filter((path) => hasInlineTests(path, isTestFile(path)) && splitTestItems(blobText(repo, `${red}^`, path)).code !== splitTestItems(blobText(repo, red, path)).code);
    if (mixed.length > 0) return reject(`the red commit changes code outside the test items of ${mixed.join(', ')}: a red may add or change only their #[cfg(test)] items`);
    if ((await runSuite(options, repo)) === 0) return reject('the suite passes with the new tests; a red test must fail');
    const skip = [topLevelName(repo, options.stateDir)].filter((n): n is string => n !== null);
    if (ranAlready(repo, red, tests.files, skip, options.passedTrees ?? [])) {
      return { ok: true, reason: `the suite fails with the new tests and passed without them (${tests.files.join(', ')}): the tree before them was run already` };
    }
    // The red commit as findStepTests read it (HEAD's sha), so the copy need not ask git for it again. The copy
    // builds into its own cargo target folder, never the user's (CARGO_TARGET_DIR included): cargo keys its
    // fingerprints on paths relative to the package and on mtimes, so a shared one makes the user's next build
    // reuse a test binary built without the new tests.
    const code = await withScratchTree(repo, red, skip, async (dir) => runSuite({ ...options, env: { ...options.env, CARGO_TARGET_DIR: join(dirname(dir), 'cargo-target') } }, dir), tests.files);
    if (code !== 0) return reject(`the suite still fails with the new test files set aside (${tests.files.join(', ')}), so the failure is not the new tests' alone`);
    return { ok: true, reason: `the suite fails with the new tests and passes without them (${tests.files.join(', ')})` };
  }
  if (phase === 'refactor') {
    const base = options.base as string;
    const isTest = testFilePredicate(options.testFiles);
    const changed = testsChanged(
      repo,
      base,
      changedSince(repo, base, undefined, options.head).filter((path) => isTest(path) || tests.files.includes(path)),
    );
    if (changed.length > 0) return reject(`test files changed since the base commit ${base}: ${changed.join(', ')}`);
  }
  if ((await runSuite(options, repo)) !== 0) return reject('the suite fails');
  if (phase === 'green' && tests.redCommit !== null && tests.files.length > 0) {
    const changed = testsChanged(repo, tests.redCommit, changedSince(repo, tests.redCommit, tests.files, options.head));
    if (changed.length > 0) return reject(`the step's tests changed since their red commit ${tests.redCommit}: ${changed.join(', ')}`);
  }
  return { ok: true, reason: phase === 'green' ? 'the suite passes' : 'the suite passes and no test file changed since the base commit' };
}

function reject(reason: string): GroundTruth {
  return { ok: false, reason: `ground truth: ${reason}` };
}

// Tracked files that differ from `commit` in the work tree, and untracked ones; optionally only `paths`. When
// `commit` is HEAD, one `git status` says both (what it adds, a staged change the work tree has undone since,
// is a change too).
function changedSince(repo: string, commit: string, paths?: readonly string[], head?: string): string[] {
  const limit = paths === undefined ? [] : ['--', ...paths];
  if (commit === head) {
    const status = gitStdout(repo, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', ...limit]);
    return [...new Set(splitNul(status).map((entry) => entry.slice(3)))];
  }
  const tracked = splitNul(gitStdout(repo, ['diff', '--no-renames', '--name-only', '-z', commit, ...limit]));
  const untracked = splitNul(gitStdout(repo, ['ls-files', '-z', '--others', '--exclude-standard', ...limit]));
  return [...new Set([...tracked, ...untracked])];
}

// Of `paths` (changed in the work tree since `commit`), those whose tests changed: all of a test file, only the
// test items of a file that holds code too (a green may change the code around them).
function testsChanged(repo: string, commit: string, paths: readonly string[]): string[] {
  return paths.filter((path) => !hasInlineTests(path, isTestFile(path)) || splitTestItems(blobText(repo, commit, path)).tests !== splitTestItems(workTreeText(repo, path)).tests);
}

// The text of `path` at `commit`; empty when the commit lacks it (a file the red commit adds).
function blobText(repo: string, commit: string, path: string): string {
  try {
    return gitStdout(repo, ['cat-file', 'blob', `${commit}:${path}`]);
  } catch {
    return '';
  }
}

function workTreeText(repo: string, path: string): string {
  try {
    return readFileSync(join(repo, path), 'utf8');
  } catch {
    return '';
  }
}

// True when the tree the red check's copy would hold (the red commit with its tests set aside) passed already:
// the red commit changes nothing but the step's tests (and the state folder), and its parent's tree equals a
// passed tree outside the state folder. A root commit, or any other change, is run.
function ranAlready(repo: string, red: string, tests: readonly string[], skip: readonly string[], passed: readonly string[]): boolean {
  if (passed.length === 0) return false;
  const outside = (path: string) => !skip.some((name) => path === name || path.startsWith(`${name}/`));
  let changed: string[];
  try {
    changed = splitNul(gitStdout(repo, ['diff', '--no-renames', '--name-only', '-z', `${red}^`, red]));
  } catch {
    return false;
  }
  if (changed.filter(outside).some((path) => !tests.includes(path))) return false;
  const exclude = skip.map((name) => `:(exclude,literal)${name}`);
  return passed.some((tree) => runGitSync(['diff', '--quiet', '--no-renames', tree, `${red}^`, '--', '.', ...exclude], { cwd: repo, allowFailure: true }).code === 0);
}
