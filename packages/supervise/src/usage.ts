// Usage errors of this package's commands carry exit code 125, whatever helper raised them.
import { UsageError } from '@leap/core';
import { EXIT_USAGE } from './exit-codes.js';

export function asUsage<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), {
      exitCode: EXIT_USAGE,
      cause: error,
    });
  }
}

/** A usage error (exit 125) of this package's commands. */
export const usageError = (message: string): UsageError => new UsageError(message, { exitCode: EXIT_USAGE });
