// The event log: one O_APPEND write per line (docs/decisions/event-log-writes.md), marks and timestamps; its one
// reader checks each line with the validator generated from event-schema.ts (no zod).
import { closeSync, fstatSync, openSync, readSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EventKind, EventOf, LeapEvent } from './event-schema.js';
import * as byKind from './event-validators.generated.js';
import { FileFormatError, orElse, showValue, UsageError } from '../errors.js';
import { isJsonObject, readFileIfExists } from '../read-file.js';
import { readRunContext } from '../run-context.js';
import { ensureStateDir, resolveStateDir, statePaths } from '../state-dir.js';

export type EventContext = { issue: number | null; step: string | null; skillCommit: string | null };

type KindFields<K extends EventKind> = Omit<EventOf<K>, 'ts' | 'event' | 'issue' | 'step' | 'skill_commit'>;

export function createEvent<K extends EventKind>(event: K, fields: KindFields<K>, context: EventContext): EventOf<K> {
  const { issue, step, skillCommit } = context;
  return { ts: isoTimestamp(), event, issue, step, skill_commit: skillCommit, ...fields } as unknown as EventOf<K>;
}

export const formatEventLine = (event: LeapEvent): string => `${JSON.stringify(event)}\n`;

export function openEventLog(file: string) {
  ensureStateDir(dirname(file));
  const fd = openSync(file, 'a+');
  return { append: (event: LeapEvent) => appendLine(fd, formatEventLine(event)), close: () => closeSync(fd) };
}

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

/** `leap-event mark`'s `key=value` arguments; `anchor` is the mark's anchor, other keys are kept as extra fields. */
export function parseMarkFields(args: string[]): { anchor: string | null; extra: Record<string, string> } {
  let anchor: string | null = null;
  const extra: Record<string, string> = {};
  const reserved = new Set(['ts', 'event', 'issue', 'step', 'skill_commit', 'name']);
  for (const arg of args) {
    const eq = arg.indexOf('=');
    const key = arg.slice(0, eq);
    if (eq <= 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
      throw new UsageError(`Expected KEY=VALUE with KEY a name, got ${showValue(arg)}`);
    if (reserved.has(key)) throw new UsageError(`KEY ${showValue(key)} is set by leap-event itself`);
    if (key === 'anchor') anchor = arg.slice(eq + 1);
    else extra[key] = arg.slice(eq + 1);
  }
  return { anchor, extra };
}

export function recordMark(
  name: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): EventOf<'mark'> {
  const env = options.env ?? process.env;
  if (name === '') throw new UsageError('Expected a mark NAME, got ""');
  const { anchor, extra } = parseMarkFields(args);
  const stateDir = resolveStateDir(env, options.cwd);
  const event = createEvent('mark', { name, anchor, ...extra }, readRunContext(stateDir, env));
  appendEvent(statePaths(stateDir).events, event);
  return event;
}

// Not Date#toISOString: its first call loads the local time zone, about 1 ms of every event writer's start-up.

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** `ms` since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`, exactly as Date#toISOString writes years 0 to 9999. */
export function isoTimestamp(ms: number = Date.now()): string {
  const days = Math.floor(ms / 86_400_000);
  const dayMs = ms - days * 86_400_000;
  // Civil date from days since 1970-01-01 (proleptic Gregorian; Howard Hinnant's days_from_civil, inverted).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const h = Math.floor(dayMs / 3_600_000);
  const m = Math.floor((dayMs % 3_600_000) / 60_000);
  const s = Math.floor((dayMs % 60_000) / 1000);
  const time = `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}.${pad(dayMs % 1000, 3)}`;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${time}Z`;
}

type Validate = ((data: unknown) => boolean) & {
  errors?: Array<{ instancePath: string; message?: string; params: { missingProperty?: string } }> | null;
};
const validators = byKind as unknown as Record<EventKind, Validate>;
export const EVENT_KINDS = Object.keys(validators) as EventKind[];
const NOT_JSON = Symbol('not JSON');
/** An event of a kind this version does not know: only its `event` is checked. */
export type OtherEvent = { [field: string]: unknown; event: string };
export type EventLine = { event: LeapEvent } | { other: OtherEvent } | { problem: string };
export type EventRecord = { line: number; event: LeapEvent };

export function parseEventLine(raw: string): EventLine {
  const json: unknown = orElse(() => JSON.parse(raw), NOT_JSON);
  const shown = (): string => JSON.stringify(raw.slice(0, 60));
  if (json === NOT_JSON) return { problem: `expected one JSON event, got ${shown()}${raw.length > 60 ? '...' : ''}` };
  if (!isJsonObject(json)) return { problem: `expected a JSON object, got ${shown()}` };
  const kind = json.event;
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
const unknownKind = (other: OtherEvent): string =>
  `${JSON.stringify(other.event)} is not an event kind: expected one of ${EVENT_KINDS.join(', ')}`;

/** Every event of `text`; a bad line or one of an unknown kind throws, but a torn last line is skipped. */
export function* parseEvents(text: string, file = '<events>'): Generator<EventRecord> {
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    if (raw.trim() === '') continue;
    const parsed = parseEventLine(raw);
    if ('event' in parsed) yield { line: index + 1, event: parsed.event };
    else if (index === lines.length - 1) return;
    else throw new FileFormatError(file, index + 1, 'problem' in parsed ? parsed.problem : unknownKind(parsed.other));
  }
}

export function readEvents(file: string): EventRecord[] {
  const text = readFileIfExists(file);
  return text === null ? [] : [...parseEvents(text, file)];
}
