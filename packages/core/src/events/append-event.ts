// One O_APPEND write per line (docs/decisions/event-log-writes.md).
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EventKind, EventOf, LeapEvent } from './event-schema.js';
import { isoTimestamp } from '../iso-time.js';
import { ensureStateDir } from '../state-dir.js';

export interface EventContext {
  issue: number | null;
  step: string | null;
  skillCommit: string | null;
}

type KindFields<K extends EventKind> = Omit<EventOf<K>, 'ts' | 'event' | 'issue' | 'step' | 'skill_commit'>;

export function createEvent<K extends EventKind>(event: K, fields: KindFields<K>, context: EventContext): EventOf<K> {
  return {
    ts: isoTimestamp(),
    event,
    issue: context.issue,
    step: context.step,
    skill_commit: context.skillCommit,
    ...fields,
  } as unknown as EventOf<K>;
}

/** JSON escapes newlines, so a line is always one line. */
export function formatEventLine(event: LeapEvent): string {
  return `${JSON.stringify(event)}\n`;
}

export interface EventLog {
  append(event: LeapEvent): void;
  close(): void;
}

/** Open `file` for appending, creating it and its folder (the state folder, with its `.gitignore`). */
export function openEventLog(file: string): EventLog {
  ensureStateDir(dirname(file));
  const fd = openSync(file, 'a+');
  return {
    append: (event) => appendLine(fd, formatEventLine(event)),
    close: () => closeSync(fd),
  };
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
  let text = line;
  // A crash may have left a torn last line: start ours on a line of its own.
  const size = fstatSync(fd).size;
  if (size > 0 && readSync(fd, lastByte, 0, 1, size - 1) === 1 && lastByte[0] !== 0x0a) text = `\n${line}`;
  const bytes = Buffer.from(text);
  let offset = writeSync(fd, bytes);
  // A short write is rare (a full disk, a signal); finish the line rather than leave it torn.
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
}
