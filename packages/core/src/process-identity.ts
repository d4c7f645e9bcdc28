// Who a pid is: start time and boot id, so a reused pid or a zombie is never taken for a live process.
import { readFileSync } from 'node:fs';
import { readProcBytes } from './proc-file.js';

/** A process as recorded in a pid or lock file. */
export interface ProcessIdentity {
  pid: number;
  starttime: string;
  bootId: string;
}

let cachedBootId: string | undefined;

/** This boot's id (`/proc/sys/kernel/random/boot_id`), or '' where there is none. */
export function bootId(): string {
  cachedBootId ??= readProcBytes('/proc/sys/kernel/random/boot_id')?.toString('latin1').trim() ?? '';
  return cachedBootId;
}

/** Fields of `/proc/PID/stat` after the command name; index 0 is the state (field 3). */
export function readProcStat(pid: number): string[] | null {
  // readFileSync 'utf8' is one native call, the cheapest cold read; a non-UTF-8 name garbles no field used.
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  if (text === '') return null;
  // The command name sits in parentheses and may hold spaces or ')': cut after the last ')'.
  return text
    .slice(text.lastIndexOf(')') + 2)
    .trim()
    .split(' ');
}

let self: ProcessIdentity | undefined;

/** The identity of a running process, or null when there is no such process. This process's own is read once. */
export function processIdentity(pid: number = process.pid): ProcessIdentity | null {
  if (pid === process.pid && self !== undefined) return { ...self };
  const stat = readProcStat(pid);
  const starttime = stat?.[19];
  if (stat === null || starttime === undefined) return null;
  const identity = { pid, starttime, bootId: bootId() };
  if (pid === process.pid) self = { ...identity };
  return identity;
}

/** True when the recorded process still runs: same pid, same start time, same boot, and not a zombie. */
export function isProcessAlive(who: {
  pid: number;
  starttime?: string | undefined;
  bootId?: string | undefined;
}): boolean {
  const stat = readProcStat(who.pid);
  // Z: a zombie; X (x on old kernels): dead.
  if (stat === null || ['Z', 'X', 'x'].includes(stat[0] as string)) return false;
  if (who.starttime !== undefined && who.starttime !== stat[19]) return false;
  if (who.bootId !== undefined && who.bootId !== '' && who.bootId !== bootId()) return false;
  return true;
}
