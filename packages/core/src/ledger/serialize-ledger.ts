// Writing a ledger back. A Ledger keeps its whole text and the editors rewrite
// that text one line at a time, so serializing never re-renders anything: every
// byte the user wrote (line endings, blanks, notes, code) comes back as it was.

import type { Ledger } from './types.js';

/** The ledger's text, byte for byte: for an unmodified parse, exactly the input. */
export function serializeLedger(ledger: Ledger): string {
  return ledger.text;
}
