// An issue body's acceptance criteria (`leap-ledger tick-criterion K`).
// The section starts at the first ATX heading, of any level, reading
// `Acceptance criteria` (any case, an optional trailing colon) and runs to the
// next heading of the same or a higher level; lines in fenced code or HTML
// comments do not count. Its criteria are its list items at column 0, numbered
// from 1 in order, whatever number an ordered list writes: bullet items
// (`- `, `* `, `+ `) and ordered items (`1. `, `1) `). An item may start with a
// checkbox, `- [ ] text` or `1. [ ] text`; only such items can be ticked, and
// ticking writes `x` into the box (an ordered item without a box cannot be
// ticked: write `1. [ ] text`). Indented lines (nested items, continuations)
// are part of the item above. A criterion's text is its first line after the
// marker and the box, trimmed: the matcher CONTRACT section 4 asks for.

import { FileFormatError, UsageError } from '../errors.js';
import { HEADING, MarkdownWalker, TEXT, isBlank, isThematicBreak, trimBlanks } from './_markdown-lines.js';
import type { Criterion } from './types.js';

interface CriteriaScan {
  headingLine: number;
  criteria: Criterion[];
  /** Offset of each criterion's state character, or -1 without a checkbox. */
  stateAt: number[];
}

/** The criteria of an issue body's `## Acceptance criteria` section; a FileFormatError when it has none. */
export function readCriteria(bodyText: string, file = '<stdin>'): Criterion[] {
  return scanCriteria(bodyText, file).criteria;
}

/** Tick criterion `k` (1-based) of the body: `[ ]` -> `[x]`, that one line changed, every other byte kept. */
export function tickCriterion(bodyText: string, k: number, file = '<stdin>'): string {
  if (!Number.isSafeInteger(k) || k < 1) {
    throw new UsageError(`Expected the criterion number to be a positive integer, got ${String(k)}`);
  }
  const scan = scanCriteria(bodyText, file);
  const criterion = scan.criteria[k - 1];
  if (criterion === undefined) {
    const count = scan.criteria.length;
    throw new FileFormatError(file, scan.headingLine, `"## Acceptance criteria" has ${count} criteri${count === 1 ? 'on' : 'a'}, so no criterion ${k}`);
  }
  if (!criterion.checkable) {
    throw new FileFormatError(file, criterion.line, `criterion ${k} has no checkbox to tick: expected "- [ ] TEXT" or "1. [ ] TEXT"`);
  }
  if (criterion.checked) throw new UsageError(`${file}:${criterion.line}: criterion ${k} is already ticked`);
  const at = scan.stateAt[k - 1] as number;
  return `${bodyText.slice(0, at)}x${bodyText.slice(at + 1)}`;
}

function scanCriteria(body: string, file: string): CriteriaScan {
  const criteria: Criterion[] = [];
  const stateAt: number[] = [];
  let headingLine = 0;
  let level = 0;
  let inSection = false;
  const line = new MarkdownWalker(body);
  while (line.advance()) {
    if (line.kind === HEADING) {
      if (inSection) {
        inSection = line.level > level;
      } else if (headingLine === 0 && isCriteriaHeading(line.heading)) {
        headingLine = line.number;
        level = line.level;
        inSection = true;
      }
      continue;
    }
    if (!inSection || line.kind !== TEXT) continue;
    const item = readItem(body.slice(line.start, line.end));
    if (item === null) continue;
    const index = criteria.length + 1;
    criteria.push({ index, text: item.text, checked: item.checked, checkable: item.box !== -1, line: line.number });
    stateAt.push(item.box === -1 ? -1 : line.start + item.box);
  }
  if (headingLine === 0) {
    throw new FileFormatError(file, undefined, 'no "## Acceptance criteria" section (a heading "Acceptance criteria" followed by a list)');
  }
  return { headingLine, criteria, stateAt };
}

function isCriteriaHeading(heading: string): boolean {
  const text = heading.endsWith(':') ? heading.slice(0, -1).trimEnd() : heading;
  return text.toLowerCase() === 'acceptance criteria';
}

// A list item at column 0: its text, whether it is checked, and the offset of its box's state character (-1: no box).
function readItem(raw: string): { text: string; checked: boolean; box: number } | null {
  let p = markerLength(raw);
  if (p === 0) return null;
  while (isBlank(raw.charCodeAt(p))) p++;
  const state = raw[p + 1];
  if (raw[p] === '[' && raw[p + 2] === ']' && (state === ' ' || state === 'x' || state === 'X') && (p + 3 === raw.length || isBlank(raw.charCodeAt(p + 3)))) {
    return { text: trimBlanks(raw.slice(p + 3)), checked: state !== ' ', box: p + 1 };
  }
  return { text: trimBlanks(raw.slice(p)), checked: false, box: -1 };
}

// Length of a list marker at the start of the line (`- `, `12. `...), 0 when the line is no list item.
function markerLength(raw: string): number {
  const first = raw.charCodeAt(0);
  if (first === 45 || first === 42 || first === 43) {
    return (raw.length === 1 || isBlank(raw.charCodeAt(1))) && !isThematicBreak(raw, 0, raw.length) ? 1 : 0;
  }
  let j = 0;
  while (j < 10 && raw.charCodeAt(j) >= 48 && raw.charCodeAt(j) <= 57) j++;
  if (j === 0 || j === 10 || (raw[j] !== '.' && raw[j] !== ')')) return 0;
  return j + 1 === raw.length || isBlank(raw.charCodeAt(j + 1)) ? j + 1 : 0;
}
