// A snapshot of every process from /proc: enough to find a leaf's session, its descendants and their CPU time.
import { readdirSync } from 'node:fs';
import { readProcBytes, readProcStat } from '@leap/core';
import { nowMs } from './long-timer.js';

const PF_EXITING = 0x4;

export type ProcInfo = NonNullable<ReturnType<typeof parseStatFields>>;

export function parseStatFields(pid: number, fields: string[]) {
  const n = (i: number) => Number(fields[i]);
  const info = {
    pid,
    ppid: n(1),
    pgid: n(2),
    sid: n(3),
    state: fields[0] ?? '?',
    starttime: n(19), // clock ticks after boot; with the pid, the process's identity
    cpu: n(11) + n(12),
    // PF_EXITING: it never runs again, though it may show R or D for a few ms (a sandbox's pid 1 after bwrap's exit).
    exiting: (n(6) & PF_EXITING) !== 0,
  };
  return Number.isFinite(info.starttime) && Number.isFinite(info.sid) ? info : null;
}

export function readProc(pid: number): ProcInfo | null {
  const fields = readProcStat(pid);
  return fields === null ? null : parseStatFields(pid, fields);
}

export const scanProcesses = (): ProcInfo[] => readListed(readdirSync('/proc'), () => true);

const readListed = (entries: string[], wanted: (pid: number) => boolean): ProcInfo[] =>
  entries.flatMap((e) => (/^[0-9]/.test(e) && wanted(Number(e)) ? (readProc(Number(e)) ?? []) : []));

function readProcNumber(path: string, pattern: RegExp): number | null {
  const match = pattern.exec(readProcBytes(path)?.toString('latin1') ?? '');
  return match === null ? null : Number(match[1]);
}

/** Processes created since boot (null: unknown); taken at a leaf's start, it bounds how far pids moved since. */
export const readForkCount = (): number | null => readProcNumber('/proc/stat', /^processes (\d+)$/m);
const readNumber = (path: string): number | null => readProcNumber(path, /^\s*(\d+)\s*$/);

/** Pids from `leaderPid` to ns_last_pid (a tree is numbered after its leader); all if unknown or maybe wrapped. */
export function scanProcessesSince(leaderPid: number, forksAtStart: number | null): ProcInfo[] {
  const max = readNumber('/proc/sys/kernel/pid_max');
  const forks = forksAtStart === null ? null : readForkCount();
  const inUse = readTaskCount();
  const room = max === null || inUse === null ? null : max - RESERVED_PIDS - inUse - WRAP_MARGIN;
  if (room === null || forks === null || forksAtStart === null || forks - forksAtStart > room) return scanProcesses();
  const entries = readdirSync('/proc');
  // Read after listing: every listed pid was handed out before this, so none is taken for a newer one.
  const last = readNumber('/proc/sys/kernel/ns_last_pid');
  if (last === null) return scanProcesses();
  const wrapped = last < leaderPid;
  return readListed(entries, (pid) => (wrapped ? pid >= leaderPid || pid <= last : pid >= leaderPid && pid <= last));
}

// Pids below 300 are skipped when numbering wraps.
const RESERVED_PIDS = 300;
// Forks missed by a count taken just after the leaf started, and tasks started since the count of those in use.
const WRAP_MARGIN = 1000;

// Threads and processes the system runs now (the fourth field of /proc/loadavg, `running/total`): pids in use.
const readTaskCount = (): number | null => readProcNumber('/proc/loadavg', /^\S+ \S+ \S+ \d+\/(\d+) /);

let shared: { at: number; procs: readonly ProcInfo[] } | null = null;

/** Shared by the supervisors of one process (a jury's); only to follow a tree, the kill sequence looks afresh. */
export function recentProcesses(maxAgeMs: number): readonly ProcInfo[] {
  const now = nowMs();
  if (shared === null || now - shared.at > maxAgeMs) shared = { at: now, procs: scanProcesses() };
  return shared.procs;
}

export const isDeadState = (state: string): boolean => state === 'Z' || state === 'X' || state === 'x';

export const isGone = (p: Pick<ProcInfo, 'state' | 'exiting'>): boolean => p.exiting || isDeadState(p.state);

/** True when the environment `pid` started with holds the variable `key` (our marker); false when unreadable. */
export const environHasKey = (pid: number, key: string): boolean => environKey(pid, key) === true;

/** Null when it reads empty: a process mid-exec has none for a moment, as has one started with none. */
export function environKey(pid: number, key: string): boolean | null {
  const env = readProcBytes(`/proc/${pid}/environ`);
  if (env === null) return false;
  if (env.length === 0) return null;
  // Only a whole variable counts: at the start, or right after the NUL that ends the previous one.
  return env.indexOf(`${key}=`) === 0 || env.indexOf(`\0${key}=`) >= 0;
}

/** Bytes `pid` has written so far (wchar of /proc/PID/io: files, pipes, terminals), or 0 when unreadable. */
export const bytesWritten = (pid: number): number => readProcNumber(`/proc/${pid}/io`, /^wchar: (\d+)$/m) ?? 0;
