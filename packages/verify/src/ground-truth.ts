// Ground truth: the verifier runs the test command itself before any agent is asked.
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { appendEvent, createEvent, readEventContext, runGitSync, statePaths, writeFd } from '@leap/core';
import { gitStdout, splitNul } from './git.js';
import { childProcess } from './lazy-builtins.js';
import type { Phase } from './phase.js';
import { topLevelName, withScratchTree } from './scratch-tree.js';
import type { StepTests } from './step-tests.js';
import { suiteSandbox, type SandboxChoice } from './leaf-sandbox.js';
import { prepareSandbox, type PreparedSandbox } from '@leap/supervise';
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

/**
 * Run the test command with bash in `cwd`; its output goes to our stderr, or is appended to `suiteLog`.
 * Resolves to its exit code (a signal is 128+N). With `stateDir`, the run is recorded as a `suite` event
 * (CONTRACT section 13): the tree it ran on, the command, the exit code, the time, the phase (a conductor's
 * run before any change is `baseline`).
 */
export function runSuite(
  options: Pick<GroundTruthOptions, 'testCmd' | 'env' | 'suiteLog'> & Partial<Pick<GroundTruthOptions, 'stateDir' | 'sandbox'>> & { phase?: Phase | 'baseline' },
  cwd: string,
): Promise<number> {
  const out = options.suiteLog === undefined ? 2 : openSync(options.suiteLog, 'a');
  const line = `leap-verify: ground truth: running VERI_TEST_CMD in ${cwd}\n`;
  if (out === 2) writeFd(2, line);
  else writeSync(out, line);
  const tree = options.stateDir === undefined ? null : workTreeHash(cwd, options.stateDir);
  const started = Date.now();
  // Sandboxed: a writer of the tree with the user's environment, so a test an agent wrote cannot reach home, .git or the state folder.
  let sandbox: PreparedSandbox | null = null;
  const bwrap = options.sandbox?.bwrap ?? null;
  if (bwrap !== null) {
    try {
      sandbox = prepareSandbox(suiteSandbox(cwd, options.stateDir, options.sandbox?.testNetwork === true), 'bash', ['-c', options.testCmd], options.env, bwrap);
    } catch (error) {
      if (out !== 2) closeSync(out);
      return Promise.reject(error);
    }
  }
  return new Promise<number>((resolve) => {
    const [command, args, env] = sandbox === null ? ['bash', ['-c', options.testCmd], options.env] : [sandbox.command, sandbox.args, sandbox.env];
    const child = childProcess().spawn(command, args, { cwd, env, stdio: ['ignore', out, out] });
    child.on('error', () => resolve(127));
    child.on('close', (code, signal) => resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal])));
  })
    .then((code) => {
      if (options.stateDir !== undefined) {
        const context = readEventContext(options.stateDir, options.env);
        appendEvent(statePaths(options.stateDir).events, createEvent('suite', { tree, command: options.testCmd, code, duration_ms: Date.now() - started, phase: options.phase ?? null }, context));
      }
      return code;
    })
    .finally(() => {
      sandbox?.cleanup();
      if (out !== 2) closeSync(out);
    });
}

/**
 * The git tree of the work tree in `cwd` as the suite finds it: tracked and untracked files, not ignored
 * ones, not the state folder. Written through a copy of the repository's index (its stat data spares
 * hashing unchanged files), so the repository's own index is never touched; null when git cannot say.
 */
function workTreeHash(cwd: string, stateDir: string): string | null {
  const scratch = mkdtempSync(join(tmpdir(), 'leap-suite-index-'));
  try {
    const index = join(scratch, 'index');
    const own = runGitSync(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd, allowFailure: true });
    if (own.code !== 0) return null;
    if (existsSync(own.stdout.trim())) copyFileSync(own.stdout.trim(), index);
    const extraEnv = { GIT_INDEX_FILE: index };
    if (runGitSync(['add', '-A', '--', '.'], { cwd, extraEnv, allowFailure: true }).code !== 0) return null;
    // The state folder is not part of what was tested (it is often ignored, and a pathspec naming an ignored
    // folder makes `git add` fail): taken out of the copy's index after.
    const state = topLevelName(cwd, stateDir);
    if (state !== null && runGitSync(['rm', '-r', '--cached', '--quiet', '--ignore-unmatch', '--', state], { cwd, extraEnv, allowFailure: true }).code !== 0) return null;
    const written = runGitSync(['write-tree'], { cwd, extraEnv, allowFailure: true });
    return written.code === 0 ? written.stdout.trim() : null;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
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
