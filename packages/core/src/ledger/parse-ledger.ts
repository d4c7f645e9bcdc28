// Reading a ledger (CONTRACT section 6). The grammar of a step line is in
// _step-line.ts and the section rules in _scan-ledger.ts; both are shared with
// validateLedger so the two cannot disagree.

import { createLedger } from './_lazy-ledger.js';
import { assertNoProblems, scanLedger } from './_scan-ledger.js';
import { warmUpTitleHash } from './_title-index.js';
import type { Ledger } from './types.js';

/** Parse a ledger's Markdown; throws a FileFormatError naming the file and line of its first problem. */
export function parseLedger(text: string, file = '<stdin>'): Ledger {
  const scan = scanLedger(text);
  assertNoProblems(scan, file);
  return createLedger(file, text, scan);
}

/** Ledgers at least this long are worth warming the scanner up for (about 1,400 typical steps). */
export const WARM_UP_BYTES = 64 * 1024;

/**
 * Before decoding a ledger of `bytes` bytes (the caller's slow step), get the scanner's hot code
 * compiled on a background thread, so parseLedger runs it optimised; does nothing for small ledgers,
 * where it would cost more (about 1 ms) than it saves.
 */
export function warmUpLedgerScan(bytes: number): void {
  if (bytes >= WARM_UP_BYTES) warmUpTitleHash();
}
