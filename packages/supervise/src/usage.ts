// Errors of this package's helpers: usage errors carry exit code 125 whatever raised them; others may fall back.
import { UsageError } from '@leap/core';
import { EXIT_USAGE } from './exit-codes.js';

export function asUsage<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(message, { exitCode: EXIT_USAGE, cause: error });
  }
}

export const usageError = (message: string): UsageError => new UsageError(message, { exitCode: EXIT_USAGE });
