// How a run ended, as an exit code (CONTRACT section 9): one table, read at each command's entry (tdd-cli.ts,
// demo-cli.ts) and by notify-end.ts for its payload's `code`. The library decides the outcome, never the code.
import type { TddRunResult } from './types.js';

/** Section 9's exit codes by outcome; bad input (2) is a UsageError thrown before anything runs. */
const EXIT_CODES = { done: 0, bailed: 1, stopped: 3 } as const satisfies Record<TddRunResult['outcome'], number>;

/** The exit code of a run that ended so. */
export function exitCode(outcome: TddRunResult['outcome']): (typeof EXIT_CODES)[TddRunResult['outcome']] {
  return EXIT_CODES[outcome];
}
