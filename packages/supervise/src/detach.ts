// leap-detach: start a command in a new session and return, after the readiness handshake when it is a supervisor.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { LeapError } from '@leap/core';
import { DETACH_START_FAILED } from './exit-codes.js';
import { startFailure } from './spawn-leaf.js';
import { READY_FD, READY_FD_VAR, isPipe, parseReadyLine } from './ready-handshake.js';

export interface DetachOptions {
  command: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** How long a supervisor may take to write NAME.pid (default 30 s). */
  readyTimeoutMs?: number;
}

export type DetachResult = { pid: number; name: string | null; run: string | null };

const SUPERVISOR_NAMES = new Set(['supervise.sh', 'leap-supervise', 'leap-supervise.js', 'leap-supervise.cjs']);

// leap-supervise's options that take a value, before NAME.
const SUPERVISOR_OPTIONS = ['--sandbox', '--network', '--pass-env'];

/** The leaf NAME when `command args` starts a supervisor: supervise.sh, leap-supervise, node .../leap-supervise.cjs. */
export function supervisedName(command: string, args: string[]): string | null {
  let rest = args;
  const base = basename(command);
  if (!SUPERVISOR_NAMES.has(base)) {
    const script = args[0];
    const viaRunner = base === 'npx' || base === 'node' || command === process.execPath;
    if (!viaRunner || script === undefined || !SUPERVISOR_NAMES.has(basename(script))) return null;
    rest = args.slice(1);
  }
  while (rest[0] !== undefined && SUPERVISOR_OPTIONS.some((o) => rest[0] === o || rest[0]?.startsWith(`${o}=`))) {
    rest = rest.slice(rest[0].includes('=') ? 1 : 2);
  }
  if (rest[0] === '--') rest = rest.slice(1);
  const name = rest[0];
  return name === undefined || name.startsWith('-') || rest.length < 2 ? null : name;
}

// A pipe or socket is not passed on: a caller reading detach's output to its end would wait for the leaf.
const passOn = (fd: 1 | 2): number | 'ignore' => (isPipe(fd) === false ? fd : 'ignore');

function startError(command: string, error: NodeJS.ErrnoException): LeapError {
  const { code, reason } = startFailure(command, error);
  return new LeapError(reason, { exitCode: code, cause: error });
}

/** A supervisor is awaited until it reports NAME.pid written; rejects (exit 1) if it dies or closes the pipe first. */
export function detach(options: DetachOptions): Promise<DetachResult> {
  const args = options.args ?? [];
  const name = supervisedName(options.command, args);
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env) };
  delete env[READY_FD_VAR];
  const stdio: StdioOptions = ['ignore', passOn(1), passOn(2)];
  if (name !== null) {
    stdio.push('pipe');
    env[READY_FD_VAR] = String(READY_FD);
  }
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(options.command, args, { detached: true, stdio, env, cwd: options.cwd });
    } catch (error) {
      reject(startError(options.command, error as NodeJS.ErrnoException));
      return;
    }
    child.once('error', (error: NodeJS.ErrnoException) => reject(startError(options.command, error)));
    if (child.pid === undefined) return;
    const pid = child.pid;
    if (name === null) {
      child.unref();
      resolve({ pid, name: null, run: null });
      return;
    }
    waitReady(child, pid, name, options.readyTimeoutMs ?? 30_000).then(resolve, reject);
  });
}

function waitReady(child: ChildProcess, pid: number, name: string, timeoutMs: number): Promise<DetachResult> {
  const pipe = child.stdio[READY_FD] as Readable | null | undefined;
  return new Promise((resolve, reject) => {
    let text = '';
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      pipe?.destroy();
      child.unref();
      fn();
    };
    const fail = (message: string): void =>
      settle(() =>
        reject(new LeapError(`supervise[${name}] (pid ${pid}) ${message}`, { exitCode: DETACH_START_FAILED })),
      );
    const timer = setTimeout(
      () => fail(`did not write its pid file within ${timeoutMs} ms; it is left running`),
      timeoutMs,
    );
    let reason = '';
    const failed = (code: number | null, signal: string | null): void => {
      const how = signal !== null ? `died of ${signal}` : `exited with code ${code}`;
      fail(`${how} during start-up, before writing its pid file${reason}`);
    };
    pipe?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const line = text.includes('\n') ? parseReadyLine(text.slice(0, text.indexOf('\n'))) : null;
      if (line?.kind === 'ready') settle(() => resolve({ pid, name, run: line.run }));
      else if (line?.kind === 'error') reason = `: ${line.reason}`;
    });
    pipe?.on('error', () => {});
    child.once('exit', (code, signal) => {
      // The ready line may still be in the pipe: read it to its end first (bounded, in case a leaf holds it).
      if (!pipe || pipe.readableEnded) return failed(code, signal);
      pipe.once('close', () => failed(code, signal));
      setTimeout(() => failed(code, signal), 500).unref();
    });
  });
}
