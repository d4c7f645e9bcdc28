// Run an agent invocation as a supervisor would, with this plugin's stand-in CLIs first on PATH.
import { chmodSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentInvocation } from '@leap/core';
import { git, makeGitRepo, makeTempDir, runCommand, type RunResult } from '@leap/test-utils';

export const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

export type Ran = RunResult;

/** The stand-in's login when a test does not say otherwise: a key, as a configured machine has one. */
export const LOGGED_IN = { GEMINI_API_KEY: 'standin-key' };

/** A user other than root to run as, when this process is root and may switch (nobody); else null. */
export const OTHER_USER = process.getuid?.() === 0 ? 65534 : null;

/**
 * Run an invocation with the stand-in CLIs first on PATH, its variables merged over ours (`undefined`
 * removes one), logged in unless `env` says otherwise; as user `uid` when given.
 */
export function runInvocation(invocation: AgentInvocation, env: Record<string, string | undefined> = {}, cwd?: string, uid?: number): Promise<Ran> {
  const merged: Record<string, string | undefined> = { ...process.env, PATH: `${fixtures}:${process.env.PATH ?? ''}`, ...LOGGED_IN, ...env, ...invocation.env };
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  const as = uid === undefined ? {} : { uid, gid: uid };
  return runCommand(invocation.command, invocation.args, { env: merged as NodeJS.ProcessEnv, cwd, input: invocation.stdin ?? '', ...as });
}

/** A fresh worktree of a fresh repository, as the conductor gives a builder; readable by every user. */
export function makeWorktree(): string {
  const repo = makeGitRepo({ files: { 'README.md': 'hello\n' } });
  const tree = join(makeTempDir('leap-worktree-'), 'wt');
  git(repo, 'worktree', 'add', '-q', '-b', 'leap/ball', tree);
  for (const dir of [repo, dirname(tree), tree]) chmodSync(dir, 0o755);
  return tree;
}

/** One file of a recorded run of the real CLI (test/fixtures/recorded/RUN/FILE). */
export function recorded(run: string, file: string): string {
  return readFileSync(join(fixtures, 'recorded', run, file), 'utf8');
}
