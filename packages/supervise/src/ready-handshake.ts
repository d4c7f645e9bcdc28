// The readiness handshake between leap-detach and a supervisor it starts: a pipe on a known fd.
import { closeSync, fstatSync, writeSync } from 'node:fs';
import { orElse } from '@leap/core';

export const READY_FD_VAR = 'LEAP_DETACH_READY_FD';

export const READY_FD = 3;

/** The fd to report readiness on, when this process was started by leap-detach (a pipe or socket on that fd). */
export function readyFd(env: NodeJS.ProcessEnv): number | null {
  const value = env[READY_FD_VAR];
  if (value === undefined || !/^[0-9]+$/.test(value)) return null;
  return isPipe(Number(value)) === true ? Number(value) : null;
}

export function isPipe(fd: number): boolean | null {
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

export function parseReadyLine(
  line: string,
): { kind: 'ready'; pid: number; run: string } | { kind: 'error'; reason: string } | null {
  const match = /^ready ([1-9][0-9]*) (\S+)$/.exec(line.trim());
  if (match !== null) return { kind: 'ready', pid: Number(match[1]), run: match[2] as string };
  return line.startsWith('error ') ? { kind: 'error', reason: line.slice(6).trim() } : null;
}
