// Test helpers of @leap/ledger: repositories holding a ledger, the built bin, and the invariant a tick keeps.
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { binPath, git, isAlive, makeGitRepo, runBin, runCommand, scriptPath, type RunResult } from '@leap/test-utils';

/** The built bin. */
export const BIN = binPath('ledger', 'leap-ledger');

/** A step of a test ledger: [state, title, criterion?]. */
export type StepSpec = ['todo' | 'done' | 'refactor-pending', string, number?];

/** A ledger's Markdown. */
export function ledgerText(steps: readonly StepSpec[], title = 'Issue 7: make it work'): string {
  const lines = steps.map(([state, t, criterion]) => {
    const box = state === 'todo' ? '[ ]' : '[x]';
    const c = criterion === undefined ? '' : ` <!-- criterion: ${criterion} -->`;
    const marker = state === 'refactor-pending' ? ' <!-- refactor-pending -->' : '';
    return `- ${box} ${t}${c}${marker}`;
  });
  return `# ${title}\n\nSome notes the commands keep byte for byte.\n\n## Steps\n\n${lines.join('\n')}\n`;
}

/** An environment without the run's variables or git's, so tests see only what they set. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(VERI_|LEAP_LEDGER_|GIT_)/.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

/** A repository whose first commit holds `.tdd/issue-ISSUE.md` with these steps (and `files`). */
export function makeLedgerRepo(
  steps: readonly StepSpec[],
  options: { issue?: number; files?: Record<string, string> } = {},
): { dir: string; ledger: string } {
  const issue = options.issue ?? 7;
  const dir = makeGitRepo({
    files: { 'README.md': '# repo\n', [`.tdd/issue-${issue}.md`]: ledgerText(steps), ...options.files },
  });
  return { dir, ledger: join(dir, '.tdd', `issue-${issue}.md`) };
}

/** Write a file (folders made) and stage it. */
export function stage(dir: string, path: string, content: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), content);
  git(dir, 'add', '--', path);
}

/** Leave `path` unmerged: branch `other` and main each change it, then main merges other. */
export function conflictOn(dir: string, path: string): void {
  git(dir, 'checkout', '-q', '-b', 'other');
  writeFileSync(join(dir, path), 'theirs\n');
  git(dir, 'commit', '-q', '-am', 'theirs');
  git(dir, 'checkout', '-q', 'main');
  writeFileSync(join(dir, path), 'ours\n');
  git(dir, 'commit', '-q', '-am', 'ours');
  try {
    git(dir, 'merge', '-q', 'other');
  } catch {
    /* the conflict is the point */
  }
}

/** Install an executable hook. */
export function installHook(dir: string, name: string, script: string, hooksDir = join(dir, '.git', 'hooks')): void {
  mkdirSync(hooksDir, { recursive: true });
  writeFileSync(join(hooksDir, name), script);
  chmodSync(join(hooksDir, name), 0o755);
}

/** Run the bin in `dir`. */
export function ledger(
  dir: string,
  args: string[],
  options: { input?: string | Buffer; env?: Record<string, string> } = {},
): Promise<RunResult> {
  return runBin(BIN, args, { cwd: dir, env: cleanEnv(options.env), input: options.input });
}

/** Run a drop-in script in `dir`. */
export function script(
  name: string,
  dir: string,
  args: string[],
  options: { input?: string | Buffer; env?: Record<string, string> } = {},
): Promise<RunResult> {
  return runCommand(scriptPath(name), args, { cwd: dir, env: cleanEnv(options.env), input: options.input });
}

/** HEAD's commit. */
export function head(dir: string): string {
  return git(dir, 'rev-parse', 'HEAD').trim();
}

/** A file as stored in a commit, or null when the commit lacks it. */
export function fileAt(dir: string, rev: string, path: string): string | null {
  try {
    return git(dir, 'show', `${rev}:${path}`);
  } catch {
    return null;
  }
}

/** What a repository looks like to the invariant: HEAD, the index's tree, staged paths, the ledger bytes. */
export interface RepoState {
  head: string;
  indexTree: string;
  staged: string;
  ledger: string;
}

/** Snapshot HEAD, the index (as a tree and as `git diff --cached --name-status`) and the ledger file. */
export function snapshot(dir: string, ledgerPath = '.tdd/issue-7.md'): RepoState {
  return {
    head: head(dir),
    indexTree: git(dir, 'write-tree').trim(),
    staged: git(dir, 'diff', '--cached', '--name-status'),
    ledger: existsSync(join(dir, ledgerPath)) ? readFileSync(join(dir, ledgerPath), 'utf8') : '<missing>',
  };
}

/** Files a transaction may leave behind while it runs; after recovery none may remain (a dead holder's lock aside). */
export function leftovers(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(join(dir, '.git')))
    if (name === 'index.lock' || name.startsWith('index.leap-')) found.push(`.git/${name}`);
  if (existsSync(join(dir, '.tdd'))) {
    for (const name of readdirSync(join(dir, '.tdd'))) {
      // The state folder's temp .gitignore of a writer killed before its rename does not count either while
      // its writer is dead: the next command that writes to the folder removes it (core's state-gitignore test).
      const gitignoreWriter = /^\.\.gitignore\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name)?.[1];
      if (gitignoreWriter !== undefined && !isAlive(Number(gitignoreWriter))) continue;
      if (
        name.endsWith('.leap-backup') ||
        name.endsWith('.leap-new') ||
        name === 'ledger-transaction.json' ||
        name.endsWith('.tmp')
      )
        found.push(`.tdd/${name}`);
      // A killed command's lock file may stay; it does not count while its holder is dead (the next taker takes it over).
      if (name === 'ledger.lock' && isAlive(Number(readFileSync(join(dir, '.tdd', name), 'utf8').split('\n')[0])))
        found.push(`.tdd/${name}`);
    }
  }
  return found;
}

/** Read the event log through core's schema reader (it rejects events that do not match). */
export async function readTickEvents(dir: string): Promise<Array<Record<string, unknown>>> {
  const { readEvents } = await import('@leap/core');
  const file = join(dir, '.tdd', 'events.jsonl');
  if (!existsSync(file)) return [];
  return readEvents(file).map((e) => e.event as unknown as Record<string, unknown>);
}

/** Assert that `run` rejects with a message matching `pattern`; returns the error. */
export async function rejects(run: () => Promise<unknown>, pattern: RegExp): Promise<Error & { exitCode?: number }> {
  try {
    await run();
  } catch (error) {
    if (!pattern.test((error as Error).message))
      throw new Error(`expected an error matching ${pattern}, got: ${(error as Error).message}`);
    return error as Error & { exitCode?: number };
  }
  throw new Error(`expected an error matching ${pattern}, got none`);
}
