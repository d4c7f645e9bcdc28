// The end of a supervised run, recorded in order: NAME.exit (atomically), then the exit event.
import {
  appendEvent,
  createEvent,
  type EventContext,
  type ExitStatus,
  type LeapEvent,
  type StatePaths,
} from '@leap/core';
import { writeExitFile } from './leaf-files.js';
import type { KillOutcome } from './kill-tree.js';

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

export interface EndDetails {
  error?: string;
  leafCode?: number | null;
  signal?: string | null;
  kill?: Pick<KillOutcome, 'leftovers' | 'escaped' | 'unkillable'>;
}

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
