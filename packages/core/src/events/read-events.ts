// The event log's one reader: each line checked by the validator generated from event-schema.ts (no zod).
import { FileFormatError } from '../errors.js';
import { readFileIfExists } from '../read-file.js';
import type { EventKind, LeapEvent } from './event-schema.js';
import * as byKind from './event-validators.generated.js';

type Validate = ((data: unknown) => boolean) & {
  errors?: Array<{ instancePath: string; message?: string; params: { missingProperty?: string } }> | null;
};
const validators = byKind as unknown as Record<EventKind, Validate>;
export const EVENT_KINDS = Object.keys(validators) as EventKind[];
/** An event of a kind this version does not know: only its `event` is checked. */
export type OtherEvent = { [field: string]: unknown; event: string };
export type EventLine = { event: LeapEvent } | { other: OtherEvent } | { problem: string };
export type EventRecord = { line: number; event: LeapEvent };

/** One line of the log: a valid event, an event of another kind, or what is wrong with it. */
export function parseEventLine(raw: string): EventLine {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return {
      problem: `expected one JSON event, got ${JSON.stringify(raw.slice(0, 60))}${raw.length > 60 ? '...' : ''}`,
    };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    return { problem: `expected a JSON object, got ${JSON.stringify(raw.slice(0, 60))}` };
  const kind = (json as OtherEvent).event;
  if (typeof kind !== 'string' || kind === '') return { problem: 'expected a string field "event", found none' };
  if (!Object.hasOwn(validators, kind)) return { other: json as OtherEvent };
  const validate = validators[kind as EventKind];
  if (validate(json)) return { event: json as LeapEvent };
  const error = validate.errors?.[0];
  const path = error?.instancePath.split('/').slice(1) ?? [];
  const missing = error?.params.missingProperty;
  if (missing !== undefined)
    return { problem: `${kind} event: expected a field ${quote([...path, missing])}, found none` };
  const got = path.reduce((value: unknown, key) => (value as Record<string, unknown>)?.[key], json);
  return { problem: `${kind} event: ${quote(path)} ${error?.message ?? 'is invalid'}, got ${JSON.stringify(got)}` };
}

const quote = (path: string[]): string => JSON.stringify(path.join('.'));

/** Every event of `text`; a bad line or one of an unknown kind throws, but a torn last line is skipped. */
export function* parseEvents(text: string, file = '<events>'): Generator<EventRecord> {
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    if (raw.trim() === '') continue;
    const parsed = parseEventLine(raw);
    if ('event' in parsed) yield { line: index + 1, event: parsed.event };
    else if (index === lines.length - 1)
      return; // a complete log's last line is empty: this one is torn
    else {
      const problem =
        'problem' in parsed
          ? parsed.problem
          : `${JSON.stringify(parsed.other.event)} is not an event kind: expected one of ${EVENT_KINDS.join(', ')}`;
      throw new FileFormatError(file, index + 1, problem);
    }
  }
}

export function readEvents(file: string): EventRecord[] {
  const text = readFileIfExists(file);
  return text === null ? [] : [...parseEvents(text, file)];
}
