// Start the leaf: no shell, a session of its own, start failures mapped to 126/127. Its stdin is an unlinked file,
// not a pipe: a pipe needs our event loop, which a busy caller would block.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { LeapError } from '@leap/core';
import { EXIT_CANNOT_EXECUTE, EXIT_NOT_FOUND } from './exit-codes.js';
import { newRunId } from './leaf-files.js';

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
  const keep = (fd: number): number => (fds.push(fd), fd);
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
export function spawnLeaf(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, io: LeafStdio = {}) {
  return new Promise<SpawnResult>((resolve) => {
    let child: ChildProcess;
    try {
      const stdio: ('inherit' | number)[] = [io.stdin ?? 'inherit', io.stdout ?? 'inherit', io.stderr ?? 'inherit'];
      if (io.status !== undefined) stdio.push(io.status);
      child = spawn(command, args, { detached: true, stdio, env: { ...env, NODE_V8_COVERAGE: undefined }, cwd });
    } catch (error) {
      // Arguments Node refuses outright (a NUL byte in an argument or the environment).
      const reason = `cannot start ${JSON.stringify(command)}: ${(error as Error).message}`;
      return resolve({ kind: 'failed', code: EXIT_CANNOT_EXECUTE, reason });
    }
    const fail = (error: NodeJS.ErrnoException) => resolve({ kind: 'failed', ...startFailure(command, error) });
    if (child.pid !== undefined) resolve({ kind: 'started', child, pid: child.pid });
    else child.once('error', fail);
  });
}

/** What the leaf reads and where it writes; each one left out is the supervisor's own. */
export interface LeafIo {
  input?: string | Uint8Array;
  /** Files for the leaf's stdout and stderr, created or emptied once NAME is locked (never a live run's). */
  stdoutFile?: string;
  stderrFile?: string;
}

/** A read-write descriptor of a new file in `dir`, already unlinked (bwrap's status file: no pipe, issue 25). */
export function openUnlinked(dir: string, kind: string): number {
  const file = join(dir, `.${kind}.${newRunId()}.tmp`);
  return closedOnError(openSync(file, 'wx+', 0o600), () => unlinkSync(file));
}

function closedOnError(fd: number, use: () => void): number {
  try {
    use();
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** A read-write descriptor of an unlinked file in `dir` holding `input`, its offset at 0 for the leaf to read. */
function openInput(dir: string, input: string | Uint8Array): number {
  const fd = openUnlinked(dir, 'input');
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  // Positional writes (pwrite) leave the descriptor's offset at 0, where the leaf starts reading.
  return closedOnError(fd, () => {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at, at);
  });
}

function openOutput(file: string, stream: 'stdout' | 'stderr'): number {
  try {
    return openSync(file, 'w');
  } catch (cause) {
    throw new LeapError(`cannot open ${file} for the leaf's ${stream}: ${(cause as Error).message}`, { cause });
  }
}

/** Read from offset 0 (bwrap's writes moved the file's), then closed. */
export function readStatus(fd: number): string {
  try {
    const buffer = Buffer.alloc(Math.min(fstatSync(fd).size, 65_536));
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString();
  } finally {
    closeSync(fd);
  }
}
