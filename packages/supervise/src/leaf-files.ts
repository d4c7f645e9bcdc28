// The two files a supervisor leaves for waiters: NAME.pid (who supervises) and NAME.exit (how it ended).
import { formatKeyValues, parseKeyValues, readFileIfExists, writeFileAtomic } from '@leap/core';

/** What NAME.pid says: the supervisor's identity and run id; `leaf` once the leaf is started. */
export type PidRecord = { pid: number; starttime?: string; bootId?: string; run?: string; leaf?: number };

export interface ExitRecord {
  code: number;
  status: string;
  leafCode?: number;
  signal?: string;
  run?: string;
  received?: string;
  leftovers?: number;
  escaped?: number;
  unkillable?: string;
  error?: string;
  durationMs?: number;
}

/** Atomic, no fsync: these files describe live processes, which a power loss ends anyway. */
export function replaceFile(file: string, text: string): void {
  writeFileAtomic(file, text, { durable: false });
}

export function formatPidRecord(record: PidRecord, token?: string): string {
  return formatKeyValues(String(record.pid), {
    starttime: record.starttime,
    boot_id: record.bootId,
    token,
    run: record.run,
    leaf: record.leaf,
  });
}

/** Null when absent or still empty (a supervisor is creating it); `pid: NaN` when line 1 is not a pid. */
export function readPidFile(file: string): PidRecord | null {
  const text = readFileIfExists(file);
  if (text === null || text === '') return null;
  const { first, values } = parseKeyValues(text);
  const pid = /^[1-9][0-9]*$/.test(first.trim()) ? Number(first.trim()) : Number.NaN;
  const leaf = values.leaf === undefined ? undefined : Number(values.leaf);
  return { pid, starttime: values.starttime, bootId: values.boot_id, run: values.run, leaf };
}

export function formatExitRecord(record: ExitRecord): string {
  return formatKeyValues(String(record.code), {
    status: record.status,
    code: record.leafCode,
    signal: record.signal,
    run: record.run,
    received: record.received,
    leftovers: record.leftovers,
    escaped: record.escaped,
    unkillable: record.unkillable,
    duration_ms: record.durationMs,
    error: record.error,
  });
}

export const writeExitFile = (file: string, record: ExitRecord): void => replaceFile(file, formatExitRecord(record));

/** Null when absent; a bad line 1 reads as code 2 `unreadable`, so a waiter answers instead of waiting for ever. */
export function readExitFile(file: string): ExitRecord | null {
  const text = readFileIfExists(file);
  if (text === null) return null;
  const { first, values } = parseKeyValues(text);
  const numeric = (v: string | undefined) => (v === undefined || !/^-?[0-9]+$/.test(v) ? undefined : Number(v));
  if (!/^\s*-?[0-9]+\s*$/.test(first)) {
    const error = `${file}: expected an exit code on line 1, got ${JSON.stringify(first.slice(0, 40))}`;
    return { code: 2, status: 'unreadable', error };
  }
  return {
    code: Number(first.trim()),
    status: values.status ?? 'exited',
    leafCode: numeric(values.code),
    signal: values.signal,
    run: values.run,
    received: values.received,
    leftovers: numeric(values.leftovers),
    escaped: numeric(values.escaped),
    unkillable: values.unkillable,
    error: values.error,
    durationMs: numeric(values.duration_ms),
  };
}

/** A run id: unique enough to tell one run of NAME from the next (time, pid and randomness; no crypto module). */
export function newRunId(): string {
  const random = ((Math.random() * 2 ** 32) >>> 0).toString(16).padStart(8, '0');
  return `${Date.now().toString(36)}${process.pid.toString(36)}${random}`;
}
