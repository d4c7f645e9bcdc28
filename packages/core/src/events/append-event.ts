// One O_APPEND write per line (docs/decisions/event-log-writes.md).
import { closeSync, fstatSync, openSync, readSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EventKind, EventOf, LeapEvent } from './event-schema.js';
import { isoTimestamp } from '../iso-time.js';
import { ensureStateDir } from '../state-dir.js';

export type EventContext = { issue: number | null; step: string | null; skillCommit: string | null };

type KindFields<K extends EventKind> = Omit<EventOf<K>, 'ts' | 'event' | 'issue' | 'step' | 'skill_commit'>;

export function createEvent<K extends EventKind>(event: K, fields: KindFields<K>, context: EventContext): EventOf<K> {
  const { issue, step, skillCommit } = context;
  return { ts: isoTimestamp(), event, issue, step, skill_commit: skillCommit, ...fields } as unknown as EventOf<K>;
}

export const formatEventLine = (event: LeapEvent): string => `${JSON.stringify(event)}\n`;

export type EventLog = ReturnType<typeof openEventLog>;

export function openEventLog(file: string) {
  ensureStateDir(dirname(file));
  const fd = openSync(file, 'a+');
  return { append: (event: LeapEvent) => appendLine(fd, formatEventLine(event)), close: () => closeSync(fd) };
}

/** Append one event to `file`. Concurrent writers never interleave: each line is one O_APPEND write. */
export function appendEvent(file: string, event: LeapEvent): void {
  const log = openEventLog(file);
  try {
    log.append(event);
  } finally {
    log.close();
  }
}

const lastByte = Buffer.alloc(1);

function appendLine(fd: number, line: string): void {
  // A crash may have left a torn last line: start ours on a line of its own.
  const size = fstatSync(fd).size;
  const torn = size > 0 && readSync(fd, lastByte, 0, 1, size - 1) === 1 && lastByte[0] !== 0x0a;
  writeFileSync(fd, torn ? `\n${line}` : line); // one write(2), repeated only after a short one
}
