// The state folder (CONTRACT section 2): where it is, the name of every file in it, and its stop requests.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import { orElse, showValue, UsageError } from './errors.js';

/** The repository root: the nearest folder at or above `cwd` holding `.git` (a folder or a worktree's file). */
export function findRepoRoot(cwd: string = process.cwd()): string | null {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/** The state folder: `VERI_STATE_DIR` when set, else `.tdd/` at the repository root (below `cwd` outside one). */
export function resolveStateDir(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  const fromEnv = env.VERI_STATE_DIR;
  return fromEnv ? resolve(cwd, fromEnv) : join(findRepoRoot(cwd) ?? resolve(cwd), '.tdd');
}

/** The folder a view command's `--dir DIR` names (CONTRACT section 10), from `cwd`; none given is `cwd` itself. */
export function dirOption(cwd: string, given: string | undefined): string {
  if (given === undefined) return cwd;
  const dir = resolve(cwd, given);
  if (given === '' || statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true)
    throw new UsageError(`Expected --dir to name a folder (a repository to look at), got ${showValue(given)}`);
  return dir;
}

export function checkLeafName(name: string): string {
  if (name === '' || name === '.' || name === '..' || /[/\0]|^-/.test(name))
    throw new UsageError(
      `Expected a leaf NAME without "/", NUL or a leading "-", and not "." or "..", got ${showValue(name)}`,
    );
  return name;
}

export function checkIssue(issue: string | number, what = 'issue'): number {
  const text = String(issue);
  if (!/^[1-9][0-9]{0,15}$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw new UsageError(`Expected ${what} to be a positive integer, got ${showValue(text)}`);
  return Number(text);
}

export type StatePaths = ReturnType<typeof statePaths>;

export function statePaths(dir: string) {
  const leaf = (ext: string) => (name: string) => join(dir, `${checkLeafName(name)}.${ext}`);
  const issuesDir = join(dir, 'issues');
  return {
    dir,
    pid: leaf('pid'),
    exit: leaf('exit'),
    out: leaf('out'),
    err: leaf('err'),
    sock: leaf('sock'),
    events: join(dir, 'events.jsonl'),
    ledger: (n: number) => join(dir, `issue-${n}.md`),
    timeout: (n: number) => join(dir, `issue-${n}-timeout`),
    skillCommit: (n: number) => join(dir, `issue-${n}-skill-commit`),
    runJournal: (n: number) => join(dir, `issue-${n}-run.json`),
    conductorLock: (n: number) => join(dir, `issue-${n}-conductor.pid`),
    stop: join(dir, 'stop'),
    issuesDir,
    issue: (n: number) => join(issuesDir, `${n}.md`),
    thread: (n: number) => join(issuesDir, `${n}.thread.md`),
  };
}

export const STATE_GITIGNORE = `# Written by LEAP when it found this state folder without one (CONTRACT section 2): \
what a run
# writes here stays out of git, so a run never leaves \`git status\` dirty. Ledgers (issue-N.md)
# and issue bodies (issues/N.md) stay tracked. LEAP writes this file only when it is missing.
*
!issue-*.md
!issues/
issues/*
!issues/*.md
issues/*.thread.md
issues/*.pr.md
`;

const ensured = new Set<string>();

/** Every state-folder writer comes here; a folder holding `.git` (`VERI_STATE_DIR=.`) keeps the user's .gitignore. */
export function ensureStateDir(dir: string): string {
  if (mkdirSync(dir, { recursive: true }) === undefined && ensured.has(dir)) return dir;
  ensured.add(dir);
  const file = join(dir, '.gitignore');
  if (!existsSync(file) && !existsSync(join(dir, '.git'))) {
    // A killed writer's `..gitignore.PID.HEX.tmp` is removed once that writer is gone (if no one did first).
    for (const name of readdirSync(dir)) {
      const pid = /^\.\.gitignore\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name)?.[1];
      if (pid !== undefined && !pidExists(Number(pid))) orElse(() => unlinkSync(join(dir, name)), null);
    }
    writeFileAtomic(file, STATE_GITIGNORE, { durable: false });
  }
  return dir;
}

/** kill(pid, 0) (EPERM: another user's); not isProcessAlive, which would load /proc parsing into every writer. */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const STOP_MODES = ['at-ledger', 'at-leaf', 'now'] as const;
export type StopMode = (typeof STOP_MODES)[number];

export type StopRequest =
  | { kind: 'none' }
  | { kind: 'requested'; mode: StopMode }
  | { kind: 'unreadable'; reason: string };

export function readStopRequest(stopFile: string): StopRequest {
  let text: string;
  try {
    text = readFileSync(stopFile, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'none' };
    return { kind: 'unreadable', reason: `${stopFile}: ${code ?? String(error)}` };
  }
  const mode = text.trim();
  if ((STOP_MODES as readonly string[]).includes(mode)) return { kind: 'requested', mode: mode as StopMode };
  const reason = `${stopFile}: expected one of ${STOP_MODES.join(', ')}, got ${showValue(text.slice(0, 80))}`;
  return { kind: 'unreadable', reason };
}

export function requestStop(stopFile: string, mode: string): StopMode {
  if (!(STOP_MODES as readonly string[]).includes(mode))
    throw new UsageError(`Expected a stop MODE, one of ${STOP_MODES.join(', ')}, got ${showValue(mode)}`);
  ensureStateDir(dirname(stopFile));
  writeFileAtomic(stopFile, `${mode}\n`);
  return mode as StopMode;
}

export const clearStop = (stopFile: string): void => rmSync(stopFile, { force: true });
