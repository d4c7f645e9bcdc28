// A `## Steps` line (CONTRACT section 6): a near-miss marker comment is malformed, any other comment is title text.
import { isBlank, isThematicBreak, trimBlanks } from './markdown.js';

export type StepState = 'todo' | 'refactor-pending' | 'done';

/** Offsets: the state character, where a new marker goes, [cut, cutEnd) the refactor-pending one (cut -1: none). */
export type StepLine = Omit<LedgerStep, 'line'> & { box: number; end: number; cut: number; cutEnd: number };

/** Quote a title for a message, cut short (never inside a surrogate pair) when long. */
export function showTitle(title: string): string {
  if (title.length <= 80) return JSON.stringify(title);
  const cut = /[\ud800-\udbff]/.test(title[79] as string) ? 79 : 80;
  return `${JSON.stringify(title.slice(0, cut))}… (${title.length} characters)`;
}

const showLine = (line: string): string => JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line);
const ORDERED = /^[0-9]{1,9}[.)](?:[ \t]|$)/;
const CRITERION = /^criterion[ \t]*:[ \t]*([1-9][0-9]{0,14})$/;
// A line as renderLedger and tickStep write it, matched in place (sticky) for a start-up that reads 10,000 of them.
const PLAIN = new RegExp(
  String.raw`[-*+] \[[ xX]\] (?:[^ \t\r\n][^\r\n]*)?[^ \t\r\n>]` +
    '(?: <!-- criterion: [1-9][0-9]{0,14} -->)?(?: <!-- refactor-pending -->)?(?=\r?\n|\r?$)',
  'y',
);
export const MARKER = ' <!-- refactor-pending -->';

/** One step, as `leap-ledger list --json` prints it: the title byte for byte, its 1-based line, its criterion K. */
export type LedgerStep = { title: string; state: StepState; line: number; criterion: number | null };

/** Step `n` when text[start, end) is a canonical step line (read as readStepLine does: tests check), else null. */
export function readPlainStep(text: string, start: number, end: number, n: number): LedgerStep | null {
  PLAIN.lastIndex = start;
  if (!PLAIN.test(text) || PLAIN.lastIndex !== end) return null;
  let state: StepState = text[start + 3] === ' ' ? 'todo' : 'done';
  let criterion: number | null = null;
  if (text.endsWith(MARKER, end)) {
    if (state === 'todo') return null;
    end -= MARKER.length;
    state = 'refactor-pending';
  }
  // A canonical title never ends with `>`: one here ends a criterion marker.
  if (text[end - 1] === '>') {
    const at = text.lastIndexOf(' <!-- criterion: ', end);
    criterion = Number(text.slice(at + 17, end - 4));
    end = at;
  }
  return { title: text.slice(start + 6, end), state, line: n, criterion };
}

const malformed = (what: string, line: string, found = 'found') =>
  `malformed step: ${what}, ${found} ${showLine(line)}`;

/** Read a line of the Steps section: null when it is no step (prose, indented lines), else the step or its problem. */
export function readStepLine(line: string): StepLine | string | null {
  if (line[0] === '-' || line[0] === '*' || line[0] === '+') {
    if (line.length === 1 || isBlank(line[1])) return isThematicBreak(line) ? null : readListItem(line);
    const glued = line[1] === '[' && line.length > 3 && (line[2] === ']' || line[3] === ']');
    if (glued) return malformed('expected a space between the bullet and the checkbox', line);
  } else if (ORDERED.test(line)) {
    return malformed('expected a bullet item "- [ ] TITLE"', line, 'found an ordered item');
  }
  return null;
}

function readListItem(line: string): StepLine | string {
  let p = 1;
  while (isBlank(line[p])) p++;
  if (line[p] !== '[') return malformed('a list item in ## Steps must be a checkbox step "- [ ] TITLE"', line);
  const box = line[p + 1] as string;
  if (p + 2 >= line.length || line[p + 2] !== ']' || !' xX'.includes(box)) {
    const found = line.slice(p, p + 8);
    const shown = JSON.stringify(found.slice(0, found.indexOf(']') + 1 || 8));
    return `malformed step: expected the checkbox "[ ]", "[x]" or "[X]", found ${shown}`;
  }
  let e = line.length;
  while (e > p + 3 && isBlank(line[e - 1])) e--;
  if (e === p + 3) return 'empty title: expected "- [ ] TITLE"';
  if (!isBlank(line[p + 3])) return malformed('expected a space after the checkbox', line);
  let t = p + 4;
  while (isBlank(line[t])) t++;
  const step: StepLine = { title: '', state: 'todo', criterion: null, box: p + 1, end: e, cut: -1, cutEnd: -1 };
  e = peelMarkers(line, t, e, step);
  if (e === -1) return step.title;
  if (e === t) return 'empty title: the line holds only markers';
  const unchecked = 'malformed step: an unchecked step carries <!-- refactor-pending --> (only a done step can)';
  if (box === ' ' && step.cut !== -1) return unchecked;
  step.state = box === ' ' ? 'todo' : step.cut === -1 ? 'done' : 'refactor-pending';
  step.title = line.slice(t, e);
  return step.title.includes('\r')
    ? 'malformed step: a carriage return inside the line (lines end with \\n or \\r\\n)'
    : step;
}

// Peel the markers off line[t, e); returns the title's end, or -1 with the problem in step.title.
function peelMarkers(line: string, t: number, e: number, step: StepLine): number {
  while (line.endsWith('-->', e)) {
    const open = line.lastIndexOf('<!--', e - 7);
    const marker = open < t ? null : readMarker(line, open, e);
    if (marker === null) break;
    const twice = marker === 0 ? step.cut !== -1 : step.criterion !== null;
    if (typeof marker === 'string' || twice) {
      const which = marker === 0 ? '<!-- refactor-pending -->' : '<!-- criterion: K -->';
      step.title = typeof marker === 'string' ? marker : `malformed step: two ${which} markers`;
      return -1;
    }
    let w = open;
    while (w > t && isBlank(line[w - 1])) w--;
    if (marker === 0) [step.cut, step.cutEnd] = [w, e];
    else step.criterion = marker;
    e = w;
  }
  return e;
}

// The comment line[open, e): 0 for refactor-pending, K for a criterion, a message for a near miss, else null.
function readMarker(line: string, open: number, e: number): number | string | null {
  const body = trimBlanks(line.slice(open + 4, e - 3)).toLowerCase();
  if (body.includes('-->')) return null;
  const found = JSON.stringify(line.slice(open, e));
  if (body.startsWith('refactor'))
    return body === 'refactor-pending' ? 0 : `malformed marker: expected "<!-- refactor-pending -->", found ${found}`;
  if (!body.startsWith('criterion')) return null;
  const k = CRITERION.exec(body)?.[1];
  return k === undefined
    ? `malformed marker: expected "<!-- criterion: K -->" with K a positive integer, found ${found}`
    : Number(k);
}
