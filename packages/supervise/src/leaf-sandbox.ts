// A supervised leaf's sandbox: its command found on the host, bwrap's command line made, or why it cannot start.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { findExecutable, orElse } from '@leap/core';
import { EXIT_CANNOT_EXECUTE, EXIT_NOT_FOUND } from './exit-codes.js';
import type { SandboxSpec } from './sandbox-plan.js';
import { EXIT_NO_SANDBOX, SandboxUnavailableError, checkSandbox, prepareSandbox } from './sandbox.js';
import type { PreparedSandbox } from './sandbox.js';
import type { LeafCommand } from './spawn-leaf.js';

type Sandboxed = PreparedSandbox | { code: number; error: string };

/** The leaf's sandbox (the supervisor's state folder hidden in it), or why the leaf cannot start. */
export function sandboxLeaf(spec: SandboxSpec, bwrap: string, leaf: LeafCommand, stateDir: string): Sandboxed {
  const { command, args, env, cwd } = leaf;
  // The command is looked up on the host (the sandbox sees the same files), so 127 and 126 keep their meaning.
  const found = findExecutable(command, env.PATH, cwd);
  if (found === null) {
    const code = cannotExecute(command, env.PATH, cwd) ? EXIT_CANNOT_EXECUTE : EXIT_NOT_FOUND;
    const what = code === EXIT_NOT_FOUND ? 'command not found' : 'cannot execute';
    return { code, error: `${what}: ${JSON.stringify(command)}` };
  }
  try {
    // The path found, not the name: PATH is not walked twice, and what runs is what was checked above.
    const inside = { ...spec, cwd: spec.cwd ?? cwd, hide: [...(spec.hide ?? []), stateDir] };
    return prepareSandbox(inside, found, args, env, bwrap, { statusFd: 3 });
  } catch (error) {
    if (error instanceof SandboxUnavailableError) return { code: EXIT_NO_SANDBOX, error: error.message };
    throw error;
  }
}

/** Why bwrap could not make the sandbox: the namespaces refused (a trial run says), or a mount it could not make. */
export function sandboxFailure(env: NodeJS.ProcessEnv): string {
  try {
    checkSandbox(env);
  } catch (error) {
    return (error as Error).message;
  }
  return "cannot sandbox the leaf: bwrap could not set up its mounts (its message is in the leaf's stderr)";
}

/** A command that exists where it is looked up but cannot be executed (126 rather than 127). */
function cannotExecute(command: string, path: string | undefined, cwd: string): boolean {
  const dirs = command.includes('/') ? [''] : (path ?? '').split(':').filter((d) => d !== '');
  return dirs.some((dir) => orElse(() => statSync(resolve(cwd, dir, command)), null) !== null);
}
