// Internal: finding steps by title without making the titles strings. Each
// title is hashed in place (FNV-1a over its UTF-16 code units) and the hashes
// go into an open-addressing table, so duplicates are found and
// `findStep(ledger, title)` is answered without slicing 10,000 titles out of
// the text; only titles whose hashes collide are compared as strings.

import { showTitle } from './_show.js';
import type { LedgerScan } from './_scan-ledger.js';

/** 32-bit FNV-1a over the UTF-16 code units of s[a, b). Small on purpose: V8 optimises it after a few calls. */
export function hashRange(s: string, a: number, b: number): number {
  let hash = 0x811c9dc5;
  for (let i = a; i < b; i++) hash = Math.imul(hash ^ s.charCodeAt(i), 0x01000193);
  return hash;
}

// A title-like sample, hashed by warmUpTitleHash until V8 optimises hashRange.
const SAMPLE = 'Step 1: a title of an ordinary length, with "quotes" and $(x)';
// Enough calls for V8 to mark hashRange for optimisation (measured: 20 are too few, 50 are enough).
const WARM_UP_CALLS = 60;

/**
 * Call hashRange until V8 has queued it for optimisation, which then compiles on a background thread.
 * Unoptimised, it is the bulk of scanning a 10,000-step ledger (about 6 ms here, 13 times the
 * optimised speed); a caller about to decode a large ledger calls this first, so the compile runs
 * during the decode instead of after thousands of titles. Costs about 1 ms.
 */
export function warmUpTitleHash(): void {
  // Run once at start-up, this loop is interpreted: no call is optimised away.
  for (let i = 0; i < WARM_UP_CALLS; i++) hashRange(SAMPLE, 0, SAMPLE.length);
}

/** Fill the scan's table; a title already there is a duplicate, reported at its second line. */
export function indexTitles(scan: LedgerScan): void {
  const { count, hashes } = scan;
  let size = 16;
  while (size < count * 2) size *= 2;
  const table = new Int32Array(size);
  const mask = size - 1;
  for (let i = 0; i < count; i++) {
    const hash = hashes[i] as number;
    let j = hash & mask;
    while (table[j] !== 0 && !sameTitle(scan, (table[j] as number) - 1, i)) j = (j + 1) & mask;
    if (table[j] === 0) table[j] = i + 1;
  }
  scan.table = table;
}

// Steps `first` and `i` share a slot's hash chain: a duplicate when the titles are equal (then reported).
function sameTitle(scan: LedgerScan, first: number, i: number): boolean {
  if (scan.hashes[first] !== scan.hashes[i] || titleAt(scan, first) !== titleAt(scan, i)) return false;
  scan.problems.push({ line: scan.lines[i] as number, message: `duplicate title ${showTitle(titleAt(scan, i))} (first at line ${scan.lines[first]})` });
  return true;
}

/** Title of step i. */
export function titleAt(scan: LedgerScan, i: number): string {
  return scan.text.slice(scan.titleStarts[i], scan.titleEnds[i]);
}

/** Index of the step titled exactly `title`, or -1. */
export function findTitle(scan: LedgerScan, title: string): number {
  const mask = scan.table.length - 1;
  const hash = hashRange(title, 0, title.length);
  for (let j = hash & mask; ; j = (j + 1) & mask) {
    const slot = scan.table[j] as number;
    if (slot === 0) return -1;
    const i = slot - 1;
    const start = scan.titleStarts[i] as number;
    if (scan.hashes[i] === hash && (scan.titleEnds[i] as number) - start === title.length && scan.text.startsWith(title, start)) return i;
  }
}
