// A run's outcome as an exit code (CONTRACT section 9), read at each entry: docs/decisions/exit-codes-at-entry.md.
import type { TddRunResult } from './types.js';

/** Section 9's exit codes by outcome; bad input (2) is a UsageError thrown before anything runs. */
const EXIT_CODES = { done: 0, bailed: 1, stopped: 3 } as const satisfies Record<TddRunResult['outcome'], number>;

export const exitCode = (outcome: TddRunResult['outcome']) => EXIT_CODES[outcome];
