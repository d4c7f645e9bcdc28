// Everything a commit needs to know about the repository, from ONE git process.
import { resolve } from 'node:path';
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

/** Read the repository around `cwd`; an unborn HEAD is refused, a folder outside any repository is a usage error. */
export async function readRepoInfo(cwd: string, env: NodeJS.ProcessEnv): Promise<RepoInfo> {
  const args = ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-path', 'index', '--git-path', 'hooks', 'HEAD', 'HEAD^{tree}'];
  const result = await runGit(args, { cwd, env, allowFailure: true });
  const lines = result.stdout.toString('utf8').split('\n');
  if (result.status !== 0 || lines.length < 6) {
    const top = await runGit(['rev-parse', '--show-toplevel'], { cwd, env, allowFailure: true });
    if (top.status !== 0) throw new UsageError(`${cwd} is not inside a git working tree: ${top.stderr.trim()}`);
    throw new RefusedError(`the repository ${top.stdout.toString('utf8').trim()} has no commit yet (HEAD is unborn): make a first commit, then tick`);
  }
  const [root, gitDir, indexFile, hooksDir, head, headTree] = lines as [string, string, string, string, string, string];
  return { root, gitDir, indexFile: resolve(cwd, indexFile), hooksDir: resolve(cwd, hooksDir), head, headTree };
}
