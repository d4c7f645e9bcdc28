// The readiness handshake between leap-detach and a supervisor it starts: a pipe on a known fd.
import { closeSync, fstatSync, writeSync } from 'node:fs';

/** The variable naming the fd on which the supervisor reports that NAME.pid is written. */
export const READY_FD_VAR = 'LEAP_DETACH_READY_FD';

export const READY_FD = 3;

/** The fd to report readiness on, when this process was started by leap-detach (a pipe or socket on that fd). */
export function readyFd(env: NodeJS.ProcessEnv): number | null {
  const value = env[READY_FD_VAR];
  if (value === undefined || !/^[0-9]+$/.test(value)) return null;
  const fd = Number(value);
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket() ? fd : null;
  } catch {
    return null;
  }
}

/** Tell leap-detach that NAME.pid is written (`ready PID RUN`), and close the pipe so no leaf inherits it. */
export function reportReady(fd: number | null, pid: number, run: string): void {
  if (fd === null) return;
  try {
    writeSync(fd, `ready ${pid} ${run}\n`);
  } catch {
    // detach is gone (its caller killed it): nobody waits for the handshake.
  }
  closeReady(fd);
}

/** Tell leap-detach why start-up failed (`error MESSAGE`, one line), and close the pipe. */
export function reportFailure(fd: number | null, message: string): void {
  if (fd === null) return;
  try {
    writeSync(fd, `error ${message.replace(/\n/g, ' ')}\n`);
  } catch {
    // detach is gone.
  }
  closeReady(fd);
}

export function closeReady(fd: number | null): void {
  if (fd === null) return;
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
}

export function parseReadyLine(
  line: string,
): { kind: 'ready'; pid: number; run: string } | { kind: 'error'; reason: string } | null {
  const match = /^ready ([1-9][0-9]*) (\S+)$/.exec(line.trim());
  if (match !== null) return { kind: 'ready', pid: Number(match[1]), run: match[2] as string };
  return line.startsWith('error ') ? { kind: 'error', reason: line.slice(6).trim() } : null;
}
