// Internal: the one scanner behind parseLedger, validateLedger and the editors,
// so they cannot disagree. It collects every problem; parse throws the first.
// The `## Steps` section starts at a level-2 ATX heading reading exactly `Steps`
// (closing `#`s allowed) and runs to the next heading of level 1 or 2; deeper
// headings (`### Phase 1`) inside it only group steps. Headings, steps and list
// items inside fenced code or HTML comments do not count. A second `## Steps`
// heading is a problem, and so is a fence or comment left open from before or
// inside the section (it hides the heading, or every line after it).
//
// Speed: `leap-ledger current` runs this at start-up on 10,000 steps, before V8
// has optimised anything, so every operation per line costs. Hence: one native
// regular expression recognises a whole run of plain step lines at once (see
// PLAIN_RUN), and the loop over that run only finds line ends and hashes
// titles; steps go into typed arrays (off the JS heap, nothing for the GC to
// copy); a title stays two offsets into the text until someone reads it; and
// duplicate titles are found through a table of hashes (_title-index.ts).

import { FileFormatError } from '../errors.js';
import { HEADING, MarkdownWalker, TEXT } from './_markdown-lines.js';
import { CARRIAGE_RETURN, MALFORMED, NOT_A_STEP, StepRead, readStepLine } from './_step-line.js';
import { hashRange, indexTitles } from './_title-index.js';

/** State codes in LedgerScan.states; 0 marks unused capacity, so `states.indexOf(code)` never runs past the steps. */
export const TODO = 1;
export const REFACTOR_PENDING = 2;
export const DONE = 3;

/** A problem at a line; validateLedger adds the file name. */
interface ScanProblem {
  line: number;
  message: string;
}

/** Everything the scanner learned, step i at index i of each array (which may be longer than `count`). */
export interface LedgerScan {
  text: string;
  count: number;
  /** TODO, REFACTOR_PENDING or DONE. */
  states: Uint8Array;
  lines: Int32Array;
  /** The criterion K, 0 for none; allocated at the first criterion marker (most ledgers of the hot path have none). */
  criteria: Float64Array | null;
  /** The title is text.slice(titleStarts[i], titleEnds[i]). */
  titleStarts: Int32Array;
  titleEnds: Int32Array;
  hashes: Int32Array;
  /** Open addressing over the hashes: step index + 1, 0 for an empty slot; its size is a power of two. */
  table: Int32Array;
  problems: ScanProblem[];
  /** Line of the `## Steps` heading, or 0 when there is none. */
  stepsLine: number;
}

// Consecutive plain step lines: BULLET, one space, [ ], [x] or [X], one space,
// a title that starts with no blank, ends with no blank and no `>` and holds no
// \r, then optionally the markers exactly as renderLedger and tickStep write
// them (` <!-- criterion: K -->`, then ` <!-- refactor-pending -->`), then the
// line ending. readStepLine reads these lines the same way, which tests check
// on generated ledgers and on random lines; any other line (other spacing,
// other marker spellings, trailing blanks) takes the general path. Linear: one
// quantifier per line, and nothing after the outer star to backtrack into.
const PLAIN_RUN = /(?:[-*+] \[[ xX]\] (?:[^ \t\r\n][^\r\n]*)?[^ \t\r\n>](?: <!-- criterion: [1-9][0-9]{0,14} -->)?(?: <!-- refactor-pending -->)?(?:\r?\n|$))*/y;
const REFACTOR_MARKER = ' <!-- refactor-pending -->';
const CRITERION_MARKER = ' <!-- criterion: ';
// Allocating typed arrays is slow at start-up, so size them once: a step line
// takes at least 8 characters (`- [ ] x` and its newline), which bounds the
// number of steps; past this cap they grow by doubling.
const MAX_INITIAL_CAPACITY = 1 << 16;

/** Scan a ledger's text for its steps and all its problems, in line order. */
export function scanLedger(text: string): LedgerScan {
  const capacity = Math.min(MAX_INITIAL_CAPACITY, Math.floor((text.length + 1) / 8) + 1);
  const scan: LedgerScan = {
    text,
    count: 0,
    states: new Uint8Array(capacity),
    lines: new Int32Array(capacity),
    criteria: null,
    titleStarts: new Int32Array(capacity),
    titleEnds: new Int32Array(capacity),
    hashes: new Int32Array(capacity),
    table: new Int32Array(0),
    problems: [],
    stepsLine: 0,
  };
  const problems = scan.problems;
  const walker = new MarkdownWalker(text);
  const read = new StepRead();
  let nextCr = text.indexOf('\r');
  let inSection = false;
  let sectionEnded = false;
  let openedInSection = false;
  while (walker.advance()) {
    if (walker.kind === HEADING) {
      if (walker.level === 2 && walker.heading === 'Steps') {
        if (scan.stepsLine === 0) scan.stepsLine = walker.number;
        else problems.push({ line: walker.number, message: `a second "## Steps" heading (the first is at line ${scan.stepsLine})` });
        inSection = true;
      } else if (inSection && walker.level <= 2) {
        inSection = false;
        sectionEnded = true;
      }
      continue;
    }
    if (walker.opens) openedInSection = !sectionEnded;
    if (!inSection || walker.kind !== TEXT) continue;
    const start = walker.start;
    PLAIN_RUN.lastIndex = start;
    PLAIN_RUN.test(text);
    if (PLAIN_RUN.lastIndex > start) {
      const before = scan.count;
      const stop = addPlainRun(scan, start, PLAIN_RUN.lastIndex, walker.number);
      if (scan.count > before) {
        walker.skip(stop, scan.count - before - 1);
        continue;
      }
    }
    const found = readStepLine(text, start, walker.end, read);
    if (found === NOT_A_STEP) continue;
    if (found === MALFORMED) {
      problems.push({ line: walker.number, message: read.problem });
      continue;
    }
    // Each search starts past the last carriage return found, so all of them together read the text once.
    if (nextCr !== -1 && nextCr < read.titleStart) nextCr = text.indexOf('\r', read.titleStart);
    if (nextCr !== -1 && nextCr < read.titleEnd) {
      problems.push({ line: walker.number, message: CARRIAGE_RETURN });
      continue;
    }
    const state = !read.checked ? TODO : read.cut === -1 ? DONE : REFACTOR_PENDING;
    addStep(scan, state, walker.number, read.criterion ?? 0, read.titleStart, read.titleEnd);
  }
  if (walker.unclosed !== 0 && openedInSection) {
    const hidden = scan.stepsLine === 0 ? 'the rest of the file, "## Steps" included' : 'every line after it (none of them can be a step)';
    problems.push({ line: walker.unclosed, message: `a code fence or HTML comment opened here is never closed, so it hides ${hidden}` });
  } else if (scan.stepsLine === 0) {
    problems.push({ line: 1, message: 'no "## Steps" heading: a ledger lists its steps under a level-2 heading "## Steps"' });
  }
  indexTitles(scan);
  problems.sort((a, b) => a.line - b.line);
  return scan;
}

// Add the plain step lines of text[start, runEnd), the first at line `line`;
// returns the offset it stopped at: runEnd, or an unchecked step carrying the
// refactor-pending marker, which is malformed and left to the line reader.
// The hottest loop of a cold start: arrays in locals, no call but the hash.
function addPlainRun(scan: LedgerScan, start: number, runEnd: number, line: number): number {
  const text = scan.text;
  let { count, states, lines, titleStarts, titleEnds, hashes } = scan;
  let pos = start;
  while (pos < runEnd) {
    const newline = text.indexOf('\n', pos);
    const next = newline === -1 ? runEnd : newline + 1;
    let end = newline === -1 ? runEnd : newline;
    if (text.charCodeAt(end - 1) === 13) end--;
    let state = text.charCodeAt(pos + 3) === 32 ? TODO : DONE;
    let criterion = 0;
    if (text.charCodeAt(end - 1) === 62 /* > */) {
      if (text.endsWith(REFACTOR_MARKER, end)) {
        if (state === TODO) break;
        state = REFACTOR_PENDING;
        end -= REFACTOR_MARKER.length;
      }
      // A title never ends with `>` in a plain run, so a `>` here ends a criterion marker.
      if (text.charCodeAt(end - 1) === 62) {
        const marker = text.lastIndexOf(CRITERION_MARKER, end);
        criterion = Number(text.slice(marker + CRITERION_MARKER.length, end - 4));
        end = marker;
      }
    }
    if (count === states.length) {
      scan.count = count;
      grow(scan, count * 2);
      ({ states, lines, titleStarts, titleEnds, hashes } = scan);
    }
    states[count] = state;
    lines[count] = line++;
    titleStarts[count] = pos + 6;
    titleEnds[count] = end;
    hashes[count] = hashRange(text, pos + 6, end);
    if (criterion !== 0) setCriterion(scan, count, criterion);
    count++;
    pos = next;
  }
  scan.count = count;
  return pos;
}

function addStep(scan: LedgerScan, state: number, line: number, criterion: number, titleStart: number, titleEnd: number): void {
  const i = scan.count;
  if (i === scan.states.length) grow(scan, i * 2);
  scan.states[i] = state;
  scan.lines[i] = line;
  if (criterion !== 0) setCriterion(scan, i, criterion);
  scan.titleStarts[i] = titleStart;
  scan.titleEnds[i] = titleEnd;
  scan.hashes[i] = hashRange(scan.text, titleStart, titleEnd);
  scan.count = i + 1;
}

function setCriterion(scan: LedgerScan, i: number, criterion: number): void {
  scan.criteria ??= new Float64Array(scan.states.length);
  scan.criteria[i] = criterion;
}

function grow(scan: LedgerScan, capacity: number): void {
  const copy = <T extends Uint8Array | Int32Array | Float64Array>(from: T, to: T): T => {
    to.set(from);
    return to;
  };
  scan.states = copy(scan.states, new Uint8Array(capacity));
  scan.lines = copy(scan.lines, new Int32Array(capacity));
  if (scan.criteria !== null) scan.criteria = copy(scan.criteria, new Float64Array(capacity));
  scan.titleStarts = copy(scan.titleStarts, new Int32Array(capacity));
  scan.titleEnds = copy(scan.titleEnds, new Int32Array(capacity));
  scan.hashes = copy(scan.hashes, new Int32Array(capacity));
}

/** Re-read the line of step i, for the offsets the editors need (for that one step only). */
export function rereadStep(scan: LedgerScan, i: number): StepRead {
  const text = scan.text;
  const start = text.lastIndexOf('\n', scan.titleStarts[i]) + 1;
  const newline = text.indexOf('\n', start);
  let end = newline === -1 ? text.length : newline;
  if (text.charCodeAt(end - 1) === 13) end--;
  const read = new StepRead();
  readStepLine(text, start, end, read);
  return read;
}

/** Throw the first problem of a scan as the FileFormatError parseLedger and the editors raise. */
export function assertNoProblems(scan: LedgerScan, file: string): void {
  const first = scan.problems[0];
  if (first !== undefined) throw new FileFormatError(file, first.line, first.message);
}
