// Errors that carry their command's exit code; only the entry point prints and exits.

export interface LeapErrorOptions {
  exitCode?: number;
  cause?: unknown;
}

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
  readonly file: string;
  readonly line: number | undefined;
  constructor(
    file: string,
    line: number | undefined,
    message: string,
    options: LeapErrorOptions & { column?: number } = {},
  ) {
    const at = line === undefined ? '' : `:${line}${options.column === undefined ? '' : `:${options.column}`}`;
    super(`${file}${at}: ${message}`, options);
    this.file = file;
    this.line = line;
  }
}

/** Something the toolchain relies on failed (git, the file system, a lock held by a live process). */
export class InternalError extends LeapError {}

/** Format a value for an error message, quoting strings so whitespace is visible. */
export function showValue(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

// C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a terminal shows.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` on one line with no terminal control: each control character (newlines too) written as \uXXXX. */
export function showText(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A word a POSIX shell reads back byte for byte, for commands printed for a person to paste. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** ` (did you mean "x"?)` when one of `known` is a likely typo of `word` (a short edit away, or its start); else ''. */
export function didYouMean(word: string, known: Iterable<string>): string {
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const d =
      candidate.startsWith(word) && word.length >= 3 ? 1 : editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return bestDistance > 0 && bestDistance <= (word.length <= 2 ? 0 : word.length <= 4 ? 1 : 2)
    ? ` (did you mean ${JSON.stringify(best)}?)`
    : '';
}

// Levenshtein distance, with a swap of two neighbours counted as one edit.
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const up = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}
