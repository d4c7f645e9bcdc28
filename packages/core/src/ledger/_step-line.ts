// Internal: reads one line of the `## Steps` section. The rules, in order:
// - Only lines starting at column 0 can be steps. An indented line (nested item,
//   continuation, note) is never a step, whatever it holds.
// - A thematic break (`---`, `* * *`) and prose (`*emphasis*`, `-foo`) are not
//   list items and are ignored, like paragraphs, blank lines and comments.
// - A bullet (`-`, `*` or `+`) followed by blanks opens a list item, and a list
//   item at column 0 must be a checkbox step: BULLET BLANKS [S] BLANKS TITLE
//   [MARKERS] [BLANKS], S one of ` `, `x`, `X`. Anything else (`- note`, `- [] x`,
//   `- [y] x`, `- [x]x`, an empty title) is malformed; so are `-[ ] x` (no blank
//   after the bullet) and an ordered item (`1. [ ] x`): steps are bullet items.
// - MARKERS are `<!-- refactor-pending -->` and `<!-- criterion: K -->` (K a
//   positive integer; any case, blanks optional inside), in either order, each
//   at most once, at the end of the line (trailing blanks allowed). A trailing
//   comment that starts with `refactor` or `criterion` but is not exactly a
//   marker is malformed rather than silently taken as title text; any other
//   trailing comment is title text.
// - The title is what lies between the checkbox and the markers, blanks around
//   it removed. (A lone \r inside a title is malformed too; the callers check
//   that, as they can do it in linear time over the whole text.)
// This runs once per line of a 10,000-step ledger on the start-up path of
// `leap-ledger current`, so it reads char codes in place and allocates nothing
// unless the line is malformed.

import { isBlank, isThematicBreak } from './_markdown-lines.js';
import { showLine } from './_show.js';

/** The result of readStepLine, reused from call to call: read it before the next call. */
export class StepRead {
  /** The title is text.slice(titleStart, titleEnd). */
  titleStart = 0;
  titleEnd = 0;
  checked = false;
  criterion: number | null = null;
  /** Offset of the state character inside `[ ]`. */
  stateAt = 0;
  /** Offset just past the title and its markers: where a new marker goes. */
  markersEnd = 0;
  /** The span removing the refactor-pending marker deletes (the blanks before it included); cut is -1 without one. */
  cut = -1;
  cutEnd = -1;
  /** What is wrong with a malformed line. */
  problem = '';
}

/** What readStepLine found: no step (prose, a nested line...), a step, or a malformed line. */
export const NOT_A_STEP = 0;
const STEP = 1;
export const MALFORMED = 2;

/** Read the line text[start, end) of the Steps section into `out`; returns NOT_A_STEP, STEP or MALFORMED. */
export function readStepLine(text: string, start: number, end: number, out: StepRead): number {
  const first = text.charCodeAt(start);
  if (first === 45 || first === 42 || first === 43) {
    const second = start + 1 < end ? text.charCodeAt(start + 1) : -1;
    if (second === -1 || isBlank(second)) {
      if (second !== -1 && isThematicBreak(text, start, end)) return NOT_A_STEP;
      return readListItem(text, start, end, out);
    }
    if (second === 91 /* [ */ && end - start > 3 && (text.charCodeAt(start + 2) === 93 || text.charCodeAt(start + 3) === 93)) {
      return fail(out, `malformed step: expected a space between the bullet and the checkbox, found ${showLine(text, start, end)}`);
    }
    return NOT_A_STEP;
  }
  if (first >= 48 && first <= 57) {
    let j = start + 1;
    while (j < end && j - start < 10 && isDigit(text.charCodeAt(j))) j++;
    const delimiter = text.charCodeAt(j);
    if (j - start < 10 && j < end && (delimiter === 46 || delimiter === 41) && (j + 1 === end || isBlank(text.charCodeAt(j + 1)))) {
      return fail(out, `malformed step: expected a bullet item "- [ ] TITLE", found an ordered item ${showLine(text, start, end)}`);
    }
  }
  return NOT_A_STEP;
}

/** Read text[start, end), a list item at column 0: the checkbox, the title, the markers peeled off its end. */
export function readListItem(text: string, start: number, end: number, out: StepRead): number {
  let p = start + 1;
  while (p < end && isBlank(text.charCodeAt(p))) p++;
  if (p === end || text.charCodeAt(p) !== 91 /* [ */) {
    return fail(out, `malformed step: a list item in ## Steps must be a checkbox step "- [ ] TITLE", found ${showLine(text, start, end)}`);
  }
  const state = p + 1 < end ? text.charCodeAt(p + 1) : -1;
  if (p + 2 >= end || text.charCodeAt(p + 2) !== 93 || (state !== 32 && state !== 120 && state !== 88)) {
    const box = text.slice(p, Math.min(end, p + 8));
    const close = box.indexOf(']');
    return fail(out, `malformed step: expected the checkbox "[ ]", "[x]" or "[X]", found ${JSON.stringify(close === -1 ? box : box.slice(0, close + 1))}`);
  }
  const after = p + 3;
  let e = end;
  while (e > after && isBlank(text.charCodeAt(e - 1))) e--;
  if (e === after) return fail(out, 'empty title: expected "- [ ] TITLE"');
  if (!isBlank(text.charCodeAt(after))) {
    return fail(out, `malformed step: expected a space after the checkbox, found ${showLine(text, start, end)}`);
  }
  let t = after + 1;
  while (isBlank(text.charCodeAt(t))) t++;
  out.markersEnd = e;
  out.criterion = null;
  out.cut = -1;
  out.cutEnd = -1;
  if (text.endsWith('-->', e)) {
    e = peelMarkers(text, t, e, out);
    if (e === -1) return MALFORMED;
  }
  if (e === t) return fail(out, 'empty title: the line holds only markers');
  out.checked = state !== 32;
  if (!out.checked && out.cut !== -1) {
    return fail(out, 'malformed step: an unchecked step carries <!-- refactor-pending --> (only a done step can)');
  }
  out.titleStart = t;
  out.titleEnd = e;
  out.stateAt = p + 1;
  return STEP;
}

// Peel the markers off text[t, e), which ends with `-->`; returns the title's end, or -1 with out.problem set.
function peelMarkers(text: string, t: number, e: number, out: StepRead): number {
  while (text.endsWith('-->', e)) {
    const open = lastCommentOpen(text, t, e - 7);
    if (open === -1) break;
    const marker = readMarker(text, open + 4, e - 3);
    if (marker === null) break;
    if (typeof marker === 'string') {
      fail(out, marker);
      return -1;
    }
    let w = open;
    while (w > t && isBlank(text.charCodeAt(w - 1))) w--;
    if (marker === 0) {
      if (out.cut !== -1) {
        fail(out, 'malformed step: two <!-- refactor-pending --> markers');
        return -1;
      }
      out.cut = w;
      out.cutEnd = e;
    } else {
      if (out.criterion !== null) {
        fail(out, 'malformed step: two <!-- criterion: K --> markers');
        return -1;
      }
      out.criterion = marker;
    }
    e = w;
  }
  return e;
}

// The last `<!--` starting in [t, from], searched backwards within the line; -1 when there is none.
function lastCommentOpen(text: string, t: number, from: number): number {
  for (let i = from; i >= t; i--) {
    if (text.charCodeAt(i) === 60 && text.startsWith('<!--', i)) return i;
  }
  return -1;
}

// The comment body s[from, to): 0 for refactor-pending, K for a criterion marker, a message for a near miss, null otherwise.
function readMarker(s: string, from: number, to: number): number | string | null {
  let a = from;
  let b = to;
  while (a < b && isBlank(s.charCodeAt(a))) a++;
  while (b > a && isBlank(s.charCodeAt(b - 1))) b--;
  const close = s.indexOf('-->', a);
  if (close < b) return null;
  if (startsWithWord(s, a, b, 'refactor')) {
    if (b - a === 16 && startsWithWord(s, a, b, 'refactor-pending')) return 0;
    return `malformed marker: expected "<!-- refactor-pending -->", found ${JSON.stringify(s.slice(from - 4, to + 3))}`;
  }
  if (!startsWithWord(s, a, b, 'criterion')) return null;
  let i = a + 9;
  while (i < b && isBlank(s.charCodeAt(i))) i++;
  let k = 0;
  if (s.charCodeAt(i) === 58 /* : */) {
    i++;
    while (i < b && isBlank(s.charCodeAt(i))) i++;
    const digits = i;
    let value = 0;
    while (i < b && isDigit(s.charCodeAt(i))) value = value * 10 + s.charCodeAt(i++) - 48;
    // At most 15 digits, so K is always a safe integer.
    if (i === b && i > digits && s.charCodeAt(digits) !== 48 && i - digits < 16) k = value;
  }
  if (k === 0) {
    return `malformed marker: expected "<!-- criterion: K -->" with K a positive integer, found ${JSON.stringify(s.slice(from - 4, to + 3))}`;
  }
  return k;
}

// Does s[a, b) start with the lower-case ASCII `word`, in any case?
function startsWithWord(s: string, a: number, b: number, word: string): boolean {
  if (b - a < word.length) return false;
  for (let i = 0; i < word.length; i++) {
    const code = s.charCodeAt(a + i);
    const lower = code >= 65 && code <= 90 ? code + 32 : code;
    if (lower !== word.charCodeAt(i)) return false;
  }
  return true;
}

/** The problem of a title holding a lone carriage return. */
export const CARRIAGE_RETURN = 'malformed step: a carriage return inside the line (lines end with \\n or \\r\\n)';

function fail(out: StepRead, problem: string): number {
  out.problem = problem;
  return MALFORMED;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
