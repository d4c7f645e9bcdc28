// Typed errors that carry the exit code their command should end with.
// Modules below the bins throw these; only the entry point prints and exits.

export interface LeapErrorOptions {
  exitCode?: number;
  cause?: unknown;
}

/** Base error of the toolchain: a message for people and the exit code for scripts. */
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

/** A file the toolchain reads (ledger, event log, JSON) is malformed at a given line. */
export class FileFormatError extends LeapError {
  readonly file: string;
  readonly line: number | undefined;
  constructor(file: string, line: number | undefined, message: string, options: LeapErrorOptions = {}) {
    super(`${file}${line === undefined ? '' : `:${line}`}: ${message}`, options);
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

/**
 * A word as a POSIX shell reads it back byte for byte, for the commands the toolchain prints for a person to
 * paste (where to poll, how to rerun): bare when it holds only safe characters, else single-quoted.
 */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}
