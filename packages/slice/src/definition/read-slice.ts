// Read a slice file: its bytes as UTF-8 JSON, then validation. `loadSliceFile` returns what it
// found, for `leap slice validate`; `readSlice` throws, for every command that needs a valid slice.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LeapError } from '@leap/core';
import { foldsCase } from './case-folding.js';
import { parseJsonText } from './parse-json.js';
import type { Slice } from './slice-schema.js';
import { validateSlice } from './validate-slice.js';
import type { Violation } from './violation.js';

/** A slice file that cannot be used: every violation, each line naming the file (exit 2). */
export class SliceFileError extends LeapError {
  readonly file: string;
  readonly violations: Violation[];
  constructor(file: string, violations: Violation[], options: { exitCode?: number; cause?: unknown } = {}) {
    super(violations.map((v) => `${file}: ${v.message}`).join('\n'), { exitCode: options.exitCode ?? 2, cause: options.cause });
    this.file = file;
    this.violations = violations;
  }
}

/** What reading a slice file gave: the slice, or its violations (the file was read but is invalid). */
export type LoadedSlice = { slice: Slice; violations: [] } | { slice: null; violations: Violation[] };

/** Options of `loadSliceFile` and `readSlice`. */
export interface ReadSliceOptions {
  /** Paths differing only in case are one file; by default, as the file system under the slice file does. */
  foldCase?: boolean;
}

/** Read and validate `file`; throws a SliceFileError (exit 2) only when it cannot be read at all. */
export function loadSliceFile(file: string, options: ReadSliceOptions = {}): LoadedSlice {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder, not a slice file' : code === 'EACCES' ? 'permission denied' : (cause as Error).message;
    throw new SliceFileError(file, [{ rule: 'read', message: `cannot read the slice file: ${why}`, balls: [] }], { cause });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { slice: null, violations: [{ rule: 'json', message: 'is not UTF-8 text: a slice file is JSON in UTF-8', balls: [] }] };
  }
  const parsed = parseJsonText(text);
  if ('problem' in parsed) return { slice: null, violations: [{ rule: 'json', message: parsed.problem, balls: [] }] };
  const foldCase = options.foldCase ?? foldsCase(dirname(resolve(file)));
  const violations = validateSlice(parsed.value, { foldCase });
  return violations.length === 0 ? { slice: parsed.value as Slice, violations: [] } : { slice: null, violations };
}

/** Read and fully validate a slice file; throws a SliceFileError (exit 2) listing every violation. */
export function readSlice(file: string, options: ReadSliceOptions = {}): Slice {
  const loaded = loadSliceFile(file, options);
  if (loaded.slice === null) throw new SliceFileError(file, loaded.violations);
  return loaded.slice;
}
