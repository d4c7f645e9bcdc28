// Every exit code of leap-ledger, decided in one place; the README and each --help show the same table.
import { LeapError, type LeapErrorOptions } from '@leap/core';

/** The exit codes of every leap-ledger command. */
export const EXIT = {
  /** Done; a query found its step. */
  ok: 0,
  /** A query found nothing (no step left, no attempt); validate found problems. */
  nothing: 1,
  /** Bad usage or bad input: unknown command or option, malformed ledger, plan or body, unknown or finished title. */
  usage: 2,
  /** Another ledger command is changing the ledger (or its processes still run): retry when it ends. */
  busy: 3,
  /** Git refused: a hook failed, nothing staged, unmerged paths, index.lock held, HEAD moved, apply conflicts. */
  refused: 4,
  /** Git or the file system failed unexpectedly (a bug, a full disk). */
  internal: 5,
} as const;

/** Another ledger command holds the ledger lock, or the processes of an interrupted one still run. */
export class BusyError extends LeapError {
  constructor(message: string, options: LeapErrorOptions = {}) {
    super(message, { ...options, exitCode: EXIT.busy });
  }
}

/** Git (or a hook) refused the change; nothing was changed. */
export class RefusedError extends LeapError {
  constructor(message: string, options: LeapErrorOptions = {}) {
    super(message, { ...options, exitCode: EXIT.refused });
  }
}

/** Something the command relies on failed unexpectedly. */
export class LedgerInternalError extends LeapError {
  constructor(message: string, options: LeapErrorOptions = {}) {
    super(message, { ...options, exitCode: EXIT.internal });
  }
}
