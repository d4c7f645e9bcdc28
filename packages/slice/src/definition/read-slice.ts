// Read a slice file (UTF-8 JSON), then validate: `loadSliceFile` returns what it found, `readSlice` throws.
import { isUtf8 } from 'node:buffer';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { LeapError, orElse } from '@leap/core';
import { schemaProblems } from './schema-problems.js';
import { wavesOf } from './plan-waves.js';
import { checkSliceRules } from './slice-rules.js';
import type { Slice } from './slice-schema.js';
import type { Violation } from './violation.js';

export class SliceFileError extends LeapError {
  readonly file: string;
  readonly violations: Violation[];
  constructor(file: string, violations: Violation[], options: { cause?: unknown } = {}) {
    super(violations.map((v) => `${file}: ${v.message}`).join('\n'), { exitCode: 2, cause: options.cause });
    this.file = file;
    this.violations = violations;
  }
}

/** A slice file read: the slice and its waves (as planWaves gives them), or its violations (read, but invalid). */
export type LoadedSlice =
  | { slice: Slice; violations: []; waves: string[][] }
  | { slice: null; violations: Violation[]; waves?: undefined };

/** `foldCase`: paths differing only in case are one file; by default, as the file system under the slice file does. */
type ValidateOptions = { foldCase?: boolean | (() => boolean) };

/** Read and validate `file`; throws a SliceFileError (exit 2) only when it cannot be read at all. */
export function loadSliceFile(file: string, options: ValidateOptions = {}): LoadedSlice {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (cause) {
    const said = { ENOENT: 'no such file', EISDIR: 'is a folder, not a slice file', EACCES: 'permission denied' };
    const why = said[(cause as NodeJS.ErrnoException).code as keyof typeof said] ?? (cause as Error).message;
    const message = `cannot read the slice file: ${why}`;
    throw new SliceFileError(file, [{ rule: 'read', message, balls: [] }], { cause });
  }
  const notUtf8 = { rule: 'json', message: 'is not UTF-8 text: a slice file is JSON in UTF-8', balls: [] };
  if (!isUtf8(bytes)) return { slice: null, violations: [notUtf8] };
  const text = bytes.toString('utf8', bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0);
  const parsed = parseJsonText(text);
  if ('problem' in parsed) return { slice: null, violations: [{ rule: 'json', message: parsed.problem, balls: [] }] };
  const foldCase = options.foldCase ?? (() => foldsCase(dirname(resolve(file))));
  const { violations, waves } = checkSlice(parsed.value, { foldCase });
  return waves === null ? { slice: null, violations } : { slice: parsed.value as Slice, violations: [], waves };
}

/** Read and fully validate a slice file; throws a SliceFileError (exit 2) listing every violation. */
export function readSlice(file: string, options: ValidateOptions = {}): Slice {
  const loaded = loadSliceFile(file, options);
  if (loaded.slice === null) throw new SliceFileError(file, loaded.violations);
  return loaded.slice;
}

/** Every violation of `value` as a slice file and, for a valid slice, its waves (the rules walk the graph anyway). */
function checkSlice(value: unknown, options: ValidateOptions = {}) {
  const schema = schemaProblems(value);
  const rules = checkSliceRules(value, { foldCase: options.foldCase ?? false, schemaValid: schema.length === 0 });
  const violations = [...schema, ...rules.violations];
  const ids = violations.length > 0 ? null : (value as Slice).balls.map((b) => b.id);
  return { violations, waves: ids === null ? null : wavesOf(ids, rules.depth) };
}

export const validateSlice = (value: unknown, options: ValidateOptions = {}) => checkSlice(value, options).violations;

// Whether a folder's file system folds case (macOS, Windows, ext4 casefold): found by looking, writing no file.
const swapCase = (name: string): string =>
  [...name].map((ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase())).join('');

/** True when `dir` (or, failing an entry with letters there, the nearest parent that has one) folds case. */
export function foldsCase(dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    const name = orElse(() => readdirSync(at), []).find((n) => swapCase(n) !== n);
    if (name !== undefined)
      return orElse(() => {
        const [a, b] = [lstatSync(join(at, name)), lstatSync(join(at, swapCase(name)))];
        return a.ino === b.ino && a.dev === b.dev;
      }, false);
    if (dirname(at) === at) return false;
  }
}

/** Where JSON.parse stopped, as `{ line, column }`, from its message's byte position. */
export function jsonErrorPosition(text: string, message: string): { line: number; column: number } {
  const at = /at position (\d+)/.exec(message);
  const offset = at === null ? text.length : Number(at[1]);
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

/** The parsed value, or the problem as `LINE:COLUMN: malformed JSON: WHY`. */
export function parseJsonText(text: string): { value: unknown } | { problem: string; line: number; column: number } {
  // An editor's byte order mark is not content.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { value: JSON.parse(body) as unknown };
  } catch (error) {
    const message = (error as Error).message;
    const { line, column } = jsonErrorPosition(body, message);
    const why = message
      .replace(/ in JSON at position \d+.*$/s, '')
      .replace(/^Unexpected end of JSON input$/, 'the text ends before the JSON value does');
    return { problem: `${line}:${column}: malformed JSON: ${why}`, line, column };
  }
}
