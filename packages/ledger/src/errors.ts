// Every exit code of leap-ledger in one place; the README and each --help show the same table.
import { LeapError, type LeapErrorOptions } from '@leap/core';

export const EXIT = {
  ok: 0, // done; a query found its step
  nothing: 1, // a query found nothing (no step left, no attempt); validate found problems
  usage: 2, // bad usage or input: unknown command or option, malformed ledger, plan or body, unknown or done title
  busy: 3, // another ledger command changes the ledger, or the processes of an interrupted one still run
  refused: 4, // git refused (a hook, nothing staged, unmerged paths, index.lock held, HEAD moved); nothing changed
  internal: 5, // git or the file system failed unexpectedly
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
