// A throw-away git worktree, so checks that need a changed tree never touch the user's.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { runGit, splitNul } from './git.js';
import { childProcess } from './lazy-builtins.js';

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * Run `work` in a detached worktree of `repo` at `commit`, then remove it whatever happens (a signal
 * included: the worktree is removed, then the signal is raised again). Ignored top-level entries of
 * the repository (node_modules, virtual environments) are linked in, so the test command finds its
 * dependencies; `skip` names entries that must not be (the state folder).
 */
export async function withScratchWorktree<T>(repo: string, commit: string, skip: readonly string[], work: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'leap-verify-'));
  const cleanup = () => {
    try {
      childProcess().execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: repo, stdio: 'ignore' });
    } catch {
      // Already gone or never made: the folder removal and prune below finish the job.
    }
    rmSync(dir, { recursive: true, force: true });
    try {
      childProcess().execFileSync('git', ['worktree', 'prune'], { cwd: repo, stdio: 'ignore' });
    } catch {
      // Prune is housekeeping only.
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    cleanup();
    for (const s of SIGNALS) process.removeListener(s, onSignal);
    process.kill(process.pid, signal);
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  try {
    runGit(repo, ['worktree', 'add', '--detach', '--quiet', dir, commit]);
    linkIgnoredEntries(repo, dir, skip);
    return await work(dir);
  } finally {
    for (const s of SIGNALS) process.removeListener(s, onSignal);
    cleanup();
  }
}

function linkIgnoredEntries(repo: string, dir: string, skip: readonly string[]): void {
  const ignored = splitNul(runGit(repo, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory', '--no-empty-directory']));
  for (const entry of ignored) {
    const name = entry.replace(/\/$/, '');
    if (name.includes('/') || name === '.git' || skip.includes(name)) continue;
    symlinkSync(join(repo, name), join(dir, name));
  }
}

/** The top-level name of `path` inside `repo`, or null when it lies outside (for `skip`). */
export function topLevelName(repo: string, path: string): string | null {
  const rel = relative(repo, path);
  if (rel === '' || rel.startsWith('..') || rel.startsWith('/')) return null;
  return rel.split('/')[0] as string;
}
