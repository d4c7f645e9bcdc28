// Read a slice file (UTF-8 JSON), then validate: `loadSliceFile` returns what it found, `readSlice` throws.
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LeapError } from '@leap/core';
import { foldsCase } from './case-folding.js';
import { parseJsonText } from './parse-json.js';
import type { Slice } from './slice-schema.js';
import { checkSlice } from './validate-slice.js';
import type { Violation } from './violation.js';

export { validateSlice } from './validate-slice.js';

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
export type ReadSliceOptions = { foldCase?: boolean };

/** Read and validate `file`; throws a SliceFileError (exit 2) only when it cannot be read at all. */
export function loadSliceFile(file: string, options: ReadSliceOptions = {}): LoadedSlice {
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
export function readSlice(file: string, options: ReadSliceOptions = {}): Slice {
  const loaded = loadSliceFile(file, options);
  if (loaded.slice === null) throw new SliceFileError(file, loaded.violations);
  return loaded.slice;
}
