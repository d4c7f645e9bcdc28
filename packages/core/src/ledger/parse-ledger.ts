// Reading a ledger (CONTRACT section 6). The grammar of a step line is in
// _step-line.ts and the section rules in _scan-ledger.ts; both are shared with
// validateLedger so the two cannot disagree.

import { createLedger } from './_lazy-ledger.js';
import { assertNoProblems, scanLedger } from './_scan-ledger.js';
import type { Ledger } from './types.js';

/** Parse a ledger's Markdown; throws a FileFormatError naming the file and line of its first problem. */
export function parseLedger(text: string, file = '<stdin>'): Ledger {
  const scan = scanLedger(text);
  assertNoProblems(scan, file);
  return createLedger(file, text, scan);
}
