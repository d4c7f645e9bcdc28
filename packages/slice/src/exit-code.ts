// The exit code of `leap slice run` (CONTRACT section 7), one table read at the command's entry and by the notify
// event's `code`: 0 the slice passed (receipt 1), 1 a ball or the aggregate refused (-1), 3 balls held or the run
// stopped (0). Bad input (exit 2) and a git failure (exit 1) are thrown before a summary exists.
import type { Receipt } from './definition/slice-schema.js';

export function sliceExitCode(receipt: Receipt): 0 | 1 | 3 {
  return receipt === 1 ? 0 : receipt === -1 ? 1 : 3;
}
