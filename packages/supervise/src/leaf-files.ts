// What a supervised run leaves: NAME.pid (who supervises), NAME.exit (how it ended), then the exit event.
import { appendEvent, createEvent, formatKeyValues, parseKeyValues, readFileIfExists } from '@leap/core';
import { writeFileAtomic, type EventContext, type ExitStatus, type LeapEvent, type StatePaths } from '@leap/core';
import type { KillOutcome } from './leaf-tree.js';

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

export function formatPidRecord({ pid, starttime, bootId, run, leaf }: PidRecord, token?: string): string {
  return formatKeyValues(String(pid), { starttime, boot_id: bootId, token, run, leaf });
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

// NAME.exit's keys after its code line, in order; FIELD names the ExitRecord field of the two that differ.
const EXIT_KEYS = 'status code signal run received leftovers escaped unkillable duration_ms error'.split(' ');
const FIELD: Record<string, keyof ExitRecord> = { code: 'leafCode', duration_ms: 'durationMs' };
const NUMBERS = new Set(['code', 'leftovers', 'escaped', 'duration_ms']);

export function formatExitRecord(record: ExitRecord): string {
  const values = Object.fromEntries(EXIT_KEYS.map((key) => [key, record[FIELD[key] ?? (key as keyof ExitRecord)]]));
  return formatKeyValues(String(record.code), values);
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
  const record: Record<string, unknown> = { code: Number(first.trim()) };
  for (const key of EXIT_KEYS) record[FIELD[key] ?? key] = NUMBERS.has(key) ? numeric(values[key]) : values[key];
  return { ...record, status: values.status ?? 'exited' } as ExitRecord;
}

/** A run id: unique enough to tell one run of NAME from the next (time, pid and randomness; no crypto module). */
export function newRunId(): string {
  const random = ((Math.random() * 2 ** 32) >>> 0).toString(16).padStart(8, '0');
  return `${Date.now().toString(36)}${process.pid.toString(36)}${random}`;
}

export interface SuperviseResult {
  name: string;
  code: number;
  status: ExitStatus;
  leafCode: number | null;
  signal: string | null;
  run: string;
  leafPid: number | null;
  durationMs: number;
  leftovers: number;
  escaped: number;
  unkillable: number[];
  /** The signal the supervisor itself received (killed-signal). */
  received: NodeJS.Signals | null;
  /** The supervisor's own error (a bad variable, a command that cannot start). */
  error: string | null;
  /** Problems that did not change the result (an event log that cannot be written). */
  warnings: string[];
  sandbox: 'bwrap' | 'off';
}

export type EndDetails = Partial<Pick<SuperviseResult, 'error' | 'leafCode' | 'signal'>> & { kill?: KillOutcome };

export function appendEventSafely(file: string, event: LeapEvent, warnings: string[]): void {
  try {
    appendEvent(file, event);
  } catch (error) {
    warnings.push(`cannot append a ${event.event} event to ${file}: ${(error as Error).message}`);
  }
}

export function recordEnd(paths: StatePaths, result: SuperviseResult, context: EventContext): void {
  try {
    writeExitFile(paths.exit(result.name), {
      code: result.code,
      status: result.status,
      run: result.run,
      durationMs: result.durationMs,
      leafCode: result.leafCode ?? undefined,
      signal: result.signal ?? undefined,
      received: result.received ?? undefined,
      leftovers: result.leftovers || undefined,
      escaped: result.escaped || undefined,
      unkillable: result.unkillable.join(',') || undefined,
      error: result.error ?? undefined,
    });
  } catch (error) {
    result.warnings.push(`cannot write ${paths.exit(result.name)}: ${(error as Error).message}`);
  }
  const fields = {
    leaf: result.name,
    code: result.code,
    status: result.status,
    duration_ms: result.durationMs,
    leaf_code: result.leafCode,
    signal: result.signal,
    run: result.run,
    leftovers: result.leftovers,
    // Fields beyond the schema's (it accepts more): who ran, what escaped, what the supervisor received.
    ...(result.escaped > 0 && { escaped: result.escaped }),
    ...(result.received !== null && { received: result.received }),
    ...(result.leafPid !== null && { leaf_pid: result.leafPid }),
    ...(result.error !== null && { error: result.error }),
    sandbox: result.sandbox,
  };
  appendEventSafely(paths.events, createEvent('exit', fields, context), result.warnings);
}

export function formatStatusLine(result: SuperviseResult): string {
  const details: string[] = [];
  if (result.leftovers > 0) details.push(`leftovers=${result.leftovers}`);
  if (result.escaped > 0) details.push(`escaped=${result.escaped}`);
  if (result.unkillable.length > 0) details.push(`unkillable=${result.unkillable.join(',')}`);
  return `supervise[${result.name}]: ${result.status}${details.length > 0 ? ` (${details.join(' ')})` : ''}\n`;
}
