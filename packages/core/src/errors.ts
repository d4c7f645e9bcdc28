// Errors that carry their command's exit code; only the entry point prints and exits.

export type LeapErrorOptions = { exitCode?: number; cause?: unknown };

export class LeapError extends Error {
  readonly exitCode: number;
  constructor(message: string, options: LeapErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = options.exitCode ?? 2;
  }
}

/** Bad arguments or environment: the caller must change the call. */
export class UsageError extends LeapError {}

/** A file the toolchain reads (ledger, event log, JSON) is malformed at a given line (and column). */
export class FileFormatError extends LeapError {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    message: string,
    options: LeapErrorOptions & { column?: number } = {},
  ) {
    const at = line === undefined ? '' : `:${line}${options.column === undefined ? '' : `:${options.column}`}`;
    super(`${file}${at}: ${message}`, options);
  }
}

/** Something the toolchain relies on failed (git, the file system, a lock held by a live process). */
export class InternalError extends LeapError {}

export const showValue = (value: unknown): string =>
  typeof value === 'string' ? JSON.stringify(value) : String(value);

// C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a terminal shows.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` on one line with no terminal control: each control character (newlines too) written as \uXXXX. */
export const showText = (text: string): string =>
  text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A word a POSIX shell reads back byte for byte, for commands printed for a person to paste. */
export const shellWord = (word: string): string =>
  /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;

/** ` (did you mean "x"?)` when one of `known` is a likely typo of `word` (a short edit away, or its start); else ''. */
export function didYouMean(word: string, known: Iterable<string>): string {
  let [best, bestDistance] = [null as string | null, Number.POSITIVE_INFINITY];
  for (const candidate of known) {
    const d =
      candidate.startsWith(word) && word.length >= 3 ? 1 : editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  const near = bestDistance > 0 && bestDistance <= (word.length <= 2 ? 0 : word.length <= 4 ? 1 : 2);
  return near ? ` (did you mean ${JSON.stringify(best)}?)` : '';
}

// Levenshtein distance, with a swap of two neighbours counted as one edit.
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i + j));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!;
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

/** `fn()`, or `fallback` when it throws: for reads that may fail (a missing file, a torn JSON line). */
export function orElse<T, F>(fn: () => T, fallback: F): T | F {
  try {
    return fn();
  } catch {
    return fallback;
  }
}
