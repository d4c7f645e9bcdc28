// The conductor's own files in the state folder (CONTRACT section 2); none is committed but the .gitignore.
import { existsSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_TIMEOUT_S,
  UsageError,
  ensureStateDir,
  findRepoRoot,
  orElse,
  readFileIfExists,
  runGitSync,
  unlinkIfPresent,
  writeFileAtomic,
  type StatePaths,
} from '@leap/core';

export interface RunJournal {
  version: 1;
  pid: number;
  /** The branch the run started from (the draft pull request's base). */
  base: string | null;
  test_cmd: string;
  step: string | null;
  phase: 'red' | 'green' | 'refactor' | null;
  attempt: number;
  /** `ready`: the next leaf is due; `leaf`: a developer leaf runs; `developed`: it ended well. */
  stage: 'ready' | 'leaf' | 'developed' | 'verifying' | 'passed';
  /** The running developer leaf and the index tree it started from (restored if it dies with its conductor). */
  leaf: string | null;
  tree: string | null;
  /** When that leaf was launched (ms since the epoch): an exit file older than this is a previous launch's. */
  leaf_started?: number;
  /** HEAD when the phase began: the refactor verification's base, where an agent's own commits are folded. */
  phase_base: string | null;
  reason: string | null;
  /** Killed leaves relaunched in this phase attempt (the retry budget is one). */
  retried: number;
  /** The family of the developer whose leaf did this phase's work: its verifier is never of it, a resume's too. */
  developer_family?: string;
  options?: import('./run-options.js').RecordedOptions;
  /** The state folder's paths that differed from HEAD when the running leaf began, and their blobs (null: absent). */
  state_before?: Record<string, string | null>;
}

export function repoRootOf(cwd: string): string {
  const root = findRepoRoot(resolve(cwd));
  if (root === null)
    throw new UsageError(`${cwd} is not inside a git repository: leap tdd run works on a repository's branch`);
  return root;
}

/** A second conductor on the issue is refused (by `leap tdd run`, and by `--detach` before it detaches). */
export const lockedError = (issue: number, pid: number | undefined, lockFile: string): UsageError =>
  new UsageError(
    `another conductor is running issue ${issue} (pid ${pid}, see ${lockFile}); stop it first (leap tdd stop now)`,
  );

/** Read the journal; a missing or unreadable one is none (the ledger and git decide then). */
export function readJournal(paths: StatePaths, issue: number): RunJournal | null {
  const file = paths.runJournal(issue);
  // The file, else (a writer stopped between its unlink and its rename) the whole next one.
  const text = readFileIfExists(file) ?? readFileIfExists(`${file}.next`);
  const data = text === null ? null : orElse(() => JSON.parse(text) as RunJournal, null);
  return data?.version === 1 ? data : null;
}

/** Never torn; not renamed over the old: ext4's auto_da_alloc makes the next unlink wait for its flush. Not durable. */
export function writeJournal(paths: StatePaths, issue: number, journal: RunJournal): void {
  const file = paths.runJournal(issue);
  const next = `${file}.next`;
  unlinkIfPresent(next);
  writeFileSync(next, `${JSON.stringify(journal, null, 1)}\n`, { flag: 'wx' });
  unlinkIfPresent(file);
  renameSync(next, file);
}

export function removeJournal(paths: StatePaths, issue: number): void {
  const file = paths.runJournal(issue);
  unlinkIfPresent(file);
  unlinkIfPresent(`${file}.next`);
}

export { STATE_GITIGNORE } from '@leap/core';

/** Create the state folder and its .gitignore when it has none (core's ensureStateDir); true when it was written. */
export function ensureStateGitignore(paths: StatePaths): boolean {
  const had = existsSync(join(paths.dir, '.gitignore'));
  ensureStateDir(paths.dir);
  return !had && existsSync(join(paths.dir, '.gitignore'));
}

export const TOOLCHAIN_VERSION = '@leap/conductor@0.1.0';

/** Its own clone's HEAD, else its version: git's ceiling keeps an installed copy from reading the user's repository. */
export function toolchainRevision(from: string = fileURLToPath(import.meta.url)): string {
  let pkg = dirname(from);
  while (!existsSync(join(pkg, 'package.json'))) {
    const parent = dirname(pkg);
    if (parent === pkg) return TOOLCHAIN_VERSION;
    pkg = parent;
  }
  const root = resolve(pkg, '..', '..');
  const pkgJson = orElse(
    () => JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: unknown },
    null,
  );
  if (pkgJson?.name !== 'leap-toolchain') return TOOLCHAIN_VERSION;
  const options = { cwd: root, isolate: true, ceiling: true, allowFailure: true } as const;
  const top = runGitSync(['rev-parse', '--show-toplevel'], options);
  if (top.code !== 0 || realpathSync(top.stdout.trim()) !== realpathSync(root)) return TOOLCHAIN_VERSION;
  const head = runGitSync(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], options);
  return head.code === 0 && /^[0-9a-f]{40,64}$/.test(head.stdout.trim()) ? head.stdout.trim() : TOOLCHAIN_VERSION;
}

export const currentRevision = (env: NodeJS.ProcessEnv): string => env.VERI_SKILL_COMMIT || toolchainRevision();

export type PinCheck = { pinned: string | null; revision: string };

/** A pin says which code made the run's events: another revision is refused (exit 2) unless VERI_NEW_SKILL=1. */
export function checkPin(paths: StatePaths, issue: number, env: NodeJS.ProcessEnv, revision = currentRevision(env)) {
  const file = paths.skillCommit(issue);
  const pinned = readFileIfExists(file)?.trim() || null;
  if (pinned !== null && pinned !== revision && env.VERI_NEW_SKILL !== '1') {
    throw new UsageError(
      `issue ${issue}'s run is pinned at toolchain revision ${pinned} (${file}), ` +
        `but this toolchain is at ${revision}: resumed, it would stamp ${pinned} on what ${revision} does. ` +
        `Resume it with the toolchain at ${pinned}, ` +
        `or set VERI_NEW_SKILL=1 to move the pin to ${revision} (recorded as a skill-commit-moved mark event).`,
    );
  }
  return { pinned, revision };
}

/** Written on the first run, kept on a resume at the same revision, moved when checkPin let another through. */
export function pinSkillCommit(paths: StatePaths, issue: number, check: PinCheck) {
  if (check.pinned === check.revision) return { pin: check.revision, movedFrom: null };
  writeFileAtomic(paths.skillCommit(issue), `${check.revision}\n`);
  return { pin: check.revision, movedFrom: check.pinned };
}

/** Write `issue-N-timeout` (900 s) when it does not exist; the user's file is kept. */
export function ensureTimeoutFile(paths: StatePaths, issue: number): void {
  const file = paths.timeout(issue);
  if (!existsSync(file)) writeFileAtomic(file, `${DEFAULT_TIMEOUT_S}\n`);
}

export const snapshot = (file: string | null): Buffer | null =>
  file === null ? null : orElse(() => readFileSync(file), null);
