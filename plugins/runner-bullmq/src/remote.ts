// Checked before anything runs: a missing remote or path is bad input (exit 2), not a held ball after a push.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError, orElse, runGit, showValue } from '@leap/core';
import { workerGitEnv } from './git.js';
import { remoteId, type RoundJob } from './protocol.js';
import { unseal } from './sign.js';
import { redactUrl } from './text.js';

/** What `remote` is: a URL (scheme:// or scp-like host:path), a path (it has a slash), else a remote's name. */
export function remoteKind(remote: string): 'url' | 'path' | 'name' {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(remote) || /^[^/]+:/.test(remote)) return 'url';
  if (remote.includes('/') || remote === '.' || remote === '..') return 'path';
  return 'name';
}

/** A URL is not reached here but at the first push: a moment's outage is not bad input. */
export async function checkRemote(cwd: string, remote: string, env: NodeJS.ProcessEnv): Promise<void> {
  const shown = showValue(redactUrl(remote));
  if (remote === '' || remote.startsWith('-'))
    throw new UsageError(`Expected --remote to be a remote's name, a path or a git URL, got ${shown}`);
  const kind = remoteKind(remote);
  const what = "the shared remote every worker clones: a remote's name, a path or a git URL";
  if (kind === 'path' && !existsSync(resolve(cwd, remote)))
    throw new UsageError(`--remote ${shown}: no such path (${what})`);
  if (kind !== 'name') return;
  const got = await runGit(['remote', 'get-url', '--', remote], { cwd, env: workerGitEnv(env), allowFailure: true });
  if (got.code !== 0) {
    const names = await runGit(['remote'], { cwd, env: workerGitEnv(env), allowFailure: true });
    const known = names.code === 0 ? names.stdout.split('\n').filter((n) => n !== '') : [];
    const remotes = known.length === 0 ? 'it has no remote' : `its remotes: ${known.join(', ')}`;
    const fix = "give a remote's name, a path or a git URL every worker reaches";
    throw new UsageError(`--remote ${shown}: the repository has no remote of that name (${remotes}); ${fix}`);
  }
}

/** One key for `origin`, its URL and its path, for every engine and `leap slice clean` of the repository. */
export async function remoteKey(cwd: string, remote: string, env: NodeJS.ProcessEnv): Promise<string> {
  const kind = remoteKind(remote);
  if (kind === 'path') return remoteId(resolve(cwd, remote));
  if (kind === 'url') return remoteId(remote);
  const got = await runGit(['remote', 'get-url', '--', remote], { cwd, env: workerGitEnv(env), allowFailure: true });
  const url = got.code === 0 ? got.stdout.trim() : remote;
  return remoteId(remoteKind(url) === 'path' ? resolve(cwd, url) : url);
}

/** The job's body when signed with `secret`, naming `slice` and the remote `key`; else undefined. */
export function sliceJob(secret: Buffer, job: { id?: string; data: unknown }, slice: string, key: string) {
  const data = orElse(() => unseal(secret, 'job', String(job?.id), job?.data) as RoundJob | undefined, undefined);
  return data?.request?.slice === slice && data.remote === key ? data : undefined;
}
