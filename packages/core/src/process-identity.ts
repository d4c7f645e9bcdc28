// Who a pid is: start time and boot id, so a reused pid or a zombie is never taken for a live process.
import { closeSync, openSync, readFileSync } from 'node:fs';
import { readToEnd, type ReadBuffer } from './read-file.js';
import { orElse } from './errors.js';

export type ProcessIdentity = { pid: number; starttime: string; bootId: string };

// /proc files report size 0 (readFileSync takes 64 KiB each): one shared buffer serves a supervisor's hundreds.
const shared: ReadBuffer = { buffer: Buffer.allocUnsafe(4096) };

/** Null when unreadable (gone, not ours); the bytes are a view of a shared buffer, valid until the next call. */
export function readProcBytes(path: string): Buffer | null {
  const fd = orElse(() => openSync(path, 'r'), null);
  if (fd === null) return null;
  try {
    return orElse(() => readToEnd(fd, shared), null);
  } finally {
    closeSync(fd);
  }
}

let cachedBootId: string | undefined;

/** This boot's id (`/proc/sys/kernel/random/boot_id`), or '' where there is none. */
export const bootId = (): string =>
  (cachedBootId ??= readProcBytes('/proc/sys/kernel/random/boot_id')?.toString('latin1').trim() ?? '');

/** Fields of `/proc/PID/stat` after the command name (which may hold spaces or ')'); index 0 is the state (field 3). */
export function readProcStat(pid: number): string[] | null {
  const text = orElse(() => readFileSync(`/proc/${pid}/stat`, 'utf8'), '');
  return text === ''
    ? null
    : text
        .slice(text.lastIndexOf(')') + 2)
        .trim()
        .split(' ');
}

let self: ProcessIdentity | undefined;

/** The identity of a running process, or null when there is no such process. This process's own is read once. */
export function processIdentity(pid: number = process.pid): ProcessIdentity | null {
  if (pid === process.pid && self !== undefined) return { ...self };
  const starttime = readProcStat(pid)?.[19];
  if (starttime === undefined) return null;
  const identity = { pid, starttime, bootId: bootId() };
  if (pid === process.pid) self = { ...identity };
  return identity;
}

export function isProcessAlive(who: Partial<ProcessIdentity> & { pid: number }): boolean {
  const stat = readProcStat(who.pid);
  // Z: a zombie; X (x on old kernels): dead.
  if (stat === null || ['Z', 'X', 'x'].includes(stat[0] as string)) return false;
  if (who.starttime !== undefined && who.starttime !== stat[19]) return false;
  if (who.bootId !== undefined && who.bootId !== '' && who.bootId !== bootId()) return false;
  return true;
}
