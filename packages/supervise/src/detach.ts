// leap-detach: start a command in a new session and return, after the readiness handshake (a pipe on a known fd).
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, fstatSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { LeapError, orElse } from '@leap/core';
import { DETACH_START_FAILED } from './exit-codes.js';
import { startFailure } from './spawn-leaf.js';

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

/** A supervisor is awaited until it reports NAME.pid written; rejects (exit 1) if it dies or closes the pipe first. */
export function detach(options: DetachOptions): Promise<DetachResult> {
  const args = options.args ?? [];
  const name = supervisedName(options.command, args);
  // Node leaves out a variable whose value is undefined.
  const env = { ...(options.env ?? process.env), [READY_FD_VAR]: name === null ? undefined : String(READY_FD) };
  const stdio: StdioOptions = ['ignore', passOn(1), passOn(2), ...(name === null ? [] : ['pipe' as const])];
  return new Promise((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException): void => {
      const { code, reason } = startFailure(options.command, error);
      reject(new LeapError(reason, { exitCode: code, cause: error }));
    };
    let child: ChildProcess;
    try {
      child = spawn(options.command, args, { detached: true, stdio, env, cwd: options.cwd });
    } catch (error) {
      return fail(error as NodeJS.ErrnoException);
    }
    child.once('error', fail);
    const pid = child.pid;
    if (pid === undefined) return;
    if (name !== null) return void waitReady(child, pid, name, options.readyTimeoutMs ?? 30_000).then(resolve, reject);
    child.unref();
    resolve({ pid, name: null, run: null });
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
    const fail = (why: string): void =>
      settle(() => reject(new LeapError(`supervise[${name}] (pid ${pid}) ${why}`, { exitCode: DETACH_START_FAILED })));
    const late = `did not write its pid file within ${timeoutMs} ms; it is left running`;
    const timer = setTimeout(() => fail(late), timeoutMs);
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

export const READY_FD_VAR = 'LEAP_DETACH_READY_FD';

const READY_FD = 3;

/** The fd to report readiness on, when this process was started by leap-detach (a pipe or socket on that fd). */
export function readyFd(env: NodeJS.ProcessEnv): number | null {
  const value = env[READY_FD_VAR];
  if (value === undefined || !/^[0-9]+$/.test(value)) return null;
  return isPipe(Number(value)) === true ? Number(value) : null;
}

function isPipe(fd: number): boolean | null {
  const stat = orElse(() => fstatSync(fd), null);
  return stat === null ? null : stat.isFIFO() || stat.isSocket();
}

/** Send leap-detach one line, then close the pipe so no leaf inherits it. */
function report(fd: number | null, line: string): void {
  if (fd === null) return;
  orElse(() => writeSync(fd, line), 0); // fails when detach is gone (its caller killed it): nobody waits then
  closeReady(fd);
}

export const reportReady = (fd: number | null, pid: number, run: string): void => report(fd, `ready ${pid} ${run}\n`);

export const reportFailure = (fd: number | null, message: string): void =>
  report(fd, `error ${message.replace(/\n/g, ' ')}\n`);

export function closeReady(fd: number | null): void {
  if (fd !== null) orElse(() => closeSync(fd), undefined);
}

export function parseReadyLine(line: string) {
  const match = /^ready ([1-9][0-9]*) (\S+)$/.exec(line.trim());
  if (match !== null) return { kind: 'ready' as const, pid: Number(match[1]), run: match[2] as string };
  return line.startsWith('error ') ? { kind: 'error' as const, reason: line.slice(6).trim() } : null;
}
