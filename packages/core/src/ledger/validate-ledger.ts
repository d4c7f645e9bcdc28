// `leap-ledger validate`: every problem of a ledger at once, where parseLedger stops at the first.

import { scanLedger } from './_scan-ledger.js';
import type { LedgerProblem } from './types.js';

/** All problems of a ledger, in line order; empty exactly when parseLedger succeeds. */
export function validateLedger(text: string, file = '<stdin>'): LedgerProblem[] {
  return scanLedger(text).problems.map((problem) => ({ file, line: problem.line, message: problem.message }));
}
