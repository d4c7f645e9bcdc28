// Every exit code of the four commands, decided in one place (README "Exit codes" mirrors this file).
import { UsageError } from '@leap/core';

/** A usage or internal error of one of our commands (GNU timeout's 125): never a leaf's answer. */
export const EXIT_USAGE = 125;
export const EXIT_CANNOT_EXECUTE = 126;
export const EXIT_NOT_FOUND = 127;
/** Every kill the supervisor records (timeout, stuck, stop, signal, external) and a refused launch. */
export const EXIT_KILLED = 2;
export const WAIT_SUPERVISOR_GONE = 2;
export const WAIT_BUDGET_SPENT = 3;
export const DETACH_START_FAILED = 1;
export const STOP_PENDING = 0;
export const STOP_UNREADABLE = 2;
export const STOP_NONE = 3;

// Errors of this package's helpers: usage errors carry exit code 125 whatever raised them; others may fall back.
export function asUsage<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(message, { exitCode: EXIT_USAGE, cause: error });
  }
}

export const usageError = (message: string): UsageError => new UsageError(message, { exitCode: EXIT_USAGE });
