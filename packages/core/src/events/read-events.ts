// Read the event log into typed events: a torn final line is skipped, a malformed line names its number.
import { readFileIfExists } from '../read-file.js';
import { FileFormatError } from '../errors.js';
import { eventSchema, type LeapEvent } from './event-schema.js';

export type EventRecord = { line: number; event: LeapEvent };

export function* parseEvents(text: string, file = '<events>'): Generator<EventRecord> {
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    if (raw.trim() === '') continue;
    const torn = index === lines.length - 1; // a complete log's last line is empty
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (cause) {
      if (torn) return;
      const got = `expected one JSON event, got ${JSON.stringify(raw.slice(0, 60))}`;
      throw new FileFormatError(file, index + 1, got, { cause });
    }
    const result = eventSchema.safeParse(json);
    if (!result.success) {
      if (torn) return;
      const issue = result.error.issues[0];
      const where = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`;
      const message = `not a valid event${where}: ${issue?.message ?? 'invalid'}`;
      throw new FileFormatError(file, index + 1, message, { cause: result.error });
    }
    yield { line: index + 1, event: result.data };
  }
}

export function readEvents(file: string): EventRecord[] {
  const text = readFileIfExists(file);
  return text === null ? [] : [...parseEvents(text, file)];
}
