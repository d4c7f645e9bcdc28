// Start the leaf: no shell, a session of its own, start failures mapped to 126/127.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync } from 'node:fs';
import { EXIT_CANNOT_EXECUTE, EXIT_NOT_FOUND } from './exit-codes.js';
import { openInput, openOutput, type LeafIo } from './leaf-io.js';

export type SpawnResult =
  | { kind: 'started'; child: ChildProcess; pid: number }
  | { kind: 'failed'; code: number; reason: string };

export function startFailureCode(errno: string | undefined): number {
  return errno === 'ENOENT' || errno === 'ENOTDIR' ? EXIT_NOT_FOUND : EXIT_CANNOT_EXECUTE;
}

export function startFailure(command: string, error: NodeJS.ErrnoException): { code: number; reason: string } {
  const what = error.code === 'ENOENT' ? 'command not found' : 'cannot execute';
  const reason = `${what}: ${JSON.stringify(command)} (${error.code ?? error.message})`;
  return { code: startFailureCode(error.code), reason };
}

/** The leaf's descriptors (`status`: its fd 3, bwrap's --json-status-fd); each one left out is the supervisor's. */
export type LeafStdio = { stdin?: number; stdout?: number; stderr?: number; status?: number };

export type LeafCommand = { command: string; args: string[]; env: NodeJS.ProcessEnv; cwd: string };

/** The leaf started with `io` opened (its input an unlinked file in `dir`) and bwrap's `status` file as its fd 3. */
export async function spawnWithIo(leaf: LeafCommand, io: LeafIo, dir: string, status?: number): Promise<SpawnResult> {
  const fds: number[] = [];
  const keep = (fd: number): number => {
    fds.push(fd);
    return fd;
  };
  try {
    const stdin = io.input === undefined ? undefined : keep(openInput(dir, io.input));
    const stdout = io.stdoutFile === undefined ? undefined : keep(openOutput(io.stdoutFile, 'stdout'));
    const stderr = io.stderrFile === undefined ? undefined : keep(openOutput(io.stderrFile, 'stderr'));
    return await spawnLeaf(leaf.command, leaf.args, leaf.env, leaf.cwd, { stdin, stdout, stderr, status });
  } finally {
    for (const fd of fds) closeSync(fd); // the leaf has its own copies
  }
}

/** NODE_V8_COVERAGE is undefined, not absent: Node adds a test's c8 coverage to an env that lacks the key. */
export function spawnLeaf(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  io: LeafStdio = {},
): Promise<SpawnResult> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      const stdio: ('inherit' | number)[] = [io.stdin ?? 'inherit', io.stdout ?? 'inherit', io.stderr ?? 'inherit'];
      if (io.status !== undefined) stdio.push(io.status);
      child = spawn(command, args, { detached: true, stdio, env: { ...env, NODE_V8_COVERAGE: undefined }, cwd });
    } catch (error) {
      // Arguments Node refuses outright (a NUL byte in an argument or the environment).
      const reason = `cannot start ${JSON.stringify(command)}: ${(error as Error).message}`;
      resolve({ kind: 'failed', code: EXIT_CANNOT_EXECUTE, reason });
      return;
    }
    if (child.pid !== undefined) resolve({ kind: 'started', child, pid: child.pid });
    else
      child.once('error', (error: NodeJS.ErrnoException) =>
        resolve({ kind: 'failed', ...startFailure(command, error) }),
      );
  });
}
