// Start the leaf: no shell, a session of its own, start failures mapped to 126/127.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync } from 'node:fs';
import { EXIT_CANNOT_EXECUTE, EXIT_NOT_FOUND } from './exit-codes.js';
import { openInput, openOutput, type LeafIo } from './leaf-io.js';

export type SpawnResult =
  | { kind: 'started'; child: ChildProcess; pid: number }
  | { kind: 'failed'; code: number; reason: string };

/** The exit code a start failure records: 127 when the command is not found, 126 when it cannot run. */
export function startFailureCode(errno: string | undefined): number {
  return errno === 'ENOENT' || errno === 'ENOTDIR' ? EXIT_NOT_FOUND : EXIT_CANNOT_EXECUTE;
}

/** The leaf's stdin, stdout and stderr: descriptors of this process; each one left out is the supervisor's own. */
export interface LeafStdio {
  stdin?: number;
  stdout?: number;
  stderr?: number;
  /** The leaf's fd 3 (bwrap's --json-status-fd 3): a descriptor of openStatus. */
  status?: number;
}

export interface LeafCommand {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

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
      const stdio: ('inherit' | 'pipe' | number)[] = [
        io.stdin ?? 'inherit',
        io.stdout ?? 'inherit',
        io.stderr ?? 'inherit',
      ];
      if (io.status !== undefined) stdio.push(io.status);
      child = spawn(command, args, { detached: true, stdio, env: { ...env, NODE_V8_COVERAGE: undefined }, cwd });
    } catch (error) {
      // Arguments Node refuses outright (a NUL byte in an argument or the environment).
      const err = error as NodeJS.ErrnoException;
      resolve({
        kind: 'failed',
        code: EXIT_CANNOT_EXECUTE,
        reason: `cannot start ${JSON.stringify(command)}: ${err.message}`,
      });
      return;
    }
    const pid = child.pid;
    if (pid !== undefined) {
      resolve({ kind: 'started', child, pid });
      return;
    }
    child.once('error', (error: NodeJS.ErrnoException) => {
      const what = error.code === 'ENOENT' ? 'command not found' : 'cannot execute';
      resolve({
        kind: 'failed',
        code: startFailureCode(error.code),
        reason: `${what}: ${JSON.stringify(command)} (${error.code ?? error.message})`,
      });
    });
  });
}
