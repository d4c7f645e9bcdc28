// Everything a commit needs to know about the repository, from ONE git process.
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '@leap/core';
import { RefusedError } from '../exit-codes.js';
import { runGit } from './run-git.js';

/** The repository around a folder. */
export interface RepoInfo {
  /** The working tree's top folder (a real path). */
  root: string;
  gitDir: string;
  /** The index file (GIT_INDEX_FILE when set). */
  indexFile: string;
  /** The hooks folder (core.hooksPath when set). */
  hooksDir: string;
  head: string;
  headTree: string;
}

/**
 * Read the repository around `cwd`; an unborn HEAD is refused, a folder outside any repository is a usage error.
 * Given `head` (HEAD's commit as the caller read it), a repository this process has asked about before, with the
 * same GIT_* variables and an unchanged .git/config (core.hooksPath), is answered from memory: `head` is HEAD
 * and `headTree` is empty (not asked).
 */
export async function readRepoInfo(cwd: string, env: NodeJS.ProcessEnv, head?: string): Promise<RepoInfo> {
  const key = layoutKey(cwd, env);
  const known = layouts.get(key);
  if (head !== undefined && known !== undefined && known.stamp === configStamp(known.layout.gitDir)) return { ...known.layout, head, headTree: '' };
  const args = ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-path', 'index', '--git-path', 'hooks', 'HEAD', 'HEAD^{tree}'];
  const stamp = known === undefined ? null : configStamp(known.layout.gitDir);
  const result = await runGit(args, { cwd, env, allowFailure: true });
  const lines = result.stdout.split('\n');
  if (result.code !== 0 || lines.length < 6) {
    const top = await runGit(['rev-parse', '--show-toplevel'], { cwd, env, allowFailure: true });
    if (top.code !== 0) throw new UsageError(`${cwd} is not inside a git working tree: ${top.stderr.trim()}`);
    throw new RefusedError(`the repository ${top.stdout.trim()} has no commit yet (HEAD is unborn): make a first commit, then tick`);
  }
  const [root, gitDir, indexFile, hooksDir, readHead, headTree] = lines as [string, string, string, string, string, string];
  const layout = { root, gitDir, indexFile: resolve(cwd, indexFile), hooksDir: resolve(cwd, hooksDir) };
  // A known folder's config is stamped before git reads it, so a change made while git runs is seen next time.
  layouts.set(key, { layout, stamp: stamp ?? configStamp(gitDir) });
  return { ...layout, head: readHead, headTree };
}

// What this process learnt of each repository's folders, by folder and git's environment.
const layouts = new Map<string, { layout: Omit<RepoInfo, 'head' | 'headTree'>; stamp: string }>();

function layoutKey(cwd: string, env: NodeJS.ProcessEnv): string {
  const git = Object.keys(env)
    .filter((k) => k.startsWith('GIT_'))
    .sort()
    .map((k) => `${k}=${env[k]}`);
  return [resolve(cwd), ...git].join('\0');
}

// The repository's config as the file system has it: a change of core.hooksPath there is a new stamp.
function configStamp(gitDir: string): string {
  const stat = statSync(join(gitDir, 'config'), { throwIfNoEntry: false, bigint: true });
  return stat === undefined ? 'none' : `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}
