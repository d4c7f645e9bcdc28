// Run a repository's commit hooks the way `git commit` does: from the hooks folder (core.hooksPath
// honoured), in the top folder, stdin from /dev/null, their output on our stderr, with GIT_INDEX_FILE
// naming the index being committed and GIT_EDITOR=: since no editor is opened.
import { accessSync, constants, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SpawnSyncOptions, SpawnSyncReturns } from 'node:child_process';
import { writeFd } from '@leap/core';
import { RefusedError } from '../exit-codes.js';
import { cleanupMessage } from './commit-message.js';

/** Where and how hooks run. */
export interface HookContext {
  hooksDir: string;
  root: string;
  env: NodeJS.ProcessEnv;
  extraEnv: Record<string, string>;
}

/** True when the hook exists and is executable. */
function hasHook(context: HookContext, name: string): boolean {
  const path = join(context.hooksDir, name);
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    if (existsSync(path)) writeFd(2, `hint: The '${path}' hook was ignored because it's not set as executable.\n`);
    return false;
  }
}

/** Run hook `name` with `args`; returns its exit status, or null when there is no such hook. */
export async function runHook(context: HookContext, name: string, args: readonly string[]): Promise<number | null> {
  if (!hasHook(context, name)) return null;
  const { spawnSync } = process.getBuiltinModule('node:child_process') as { spawnSync: (command: string, args: readonly string[], options: SpawnSyncOptions) => SpawnSyncReturns<Buffer> };
  const path = join(context.hooksDir, name);
  const options = { cwd: context.root, env: { ...context.env, GIT_EDITOR: ':', ...context.extraEnv }, stdio: ['ignore', 2, 2] as ['ignore', number, number] };
  let child = spawnSync(path, args, options);
  // git runs a hook without a #! line through the shell; so do we (the arguments stay argv, never a string).
  if ((child.error as NodeJS.ErrnoException | undefined)?.code === 'ENOEXEC') child = spawnSync('/bin/sh', [path, ...args], options);
  if (child.error !== undefined) return 126;
  return child.status ?? 128 + 9;
}

/** Run hook `name`; a non-zero status refuses the commit (a RefusedError naming the hook and its status). */
export async function refuseOnHook(context: HookContext, name: string, args: readonly string[]): Promise<void> {
  const status = await runHook(context, name, args);
  if (status !== null && status !== 0) throw new RefusedError(`the ${name} hook refused the commit (exit ${status}); nothing was committed`);
}

/**
 * Let prepare-commit-msg and commit-msg (the latter unless `noVerify`) edit the message in
 * $GIT_DIR/COMMIT_EDITMSG, as under `git commit -m`; returns the message, cleaned up again.
 */
export async function runMessageHooks(context: HookContext, gitDir: string, message: string, noVerify: boolean): Promise<string> {
  const wantsPrepare = hasHook(context, 'prepare-commit-msg');
  const wantsCheck = !noVerify && hasHook(context, 'commit-msg');
  if (!wantsPrepare && !wantsCheck) return message;
  const file = join(gitDir, 'COMMIT_EDITMSG');
  writeFileSync(file, message);
  if (wantsPrepare) await refuseOnHook(context, 'prepare-commit-msg', [file, 'message']);
  if (wantsCheck) await refuseOnHook(context, 'commit-msg', [file]);
  const edited = cleanupMessage(readFileSync(file, 'utf8'));
  if (edited === '') throw new RefusedError('Aborting commit due to empty commit message (left by a message hook)');
  return edited;
}
