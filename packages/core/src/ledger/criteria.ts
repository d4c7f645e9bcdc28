// `Acceptance criteria`: any heading level, any case, optional colon; to the next heading of that level or higher.
import { FileFormatError, UsageError } from '../errors.js';
import { isBlank, isThematicBreak, trimBlanks, walkMarkdown } from './markdown.js';

/** One item of the section: its position from 1, first line, state, whether it has a box to tick, line in the body. */
export type Criterion = { index: number; text: string; checked: boolean; checkable: boolean; line: number };

/** The criteria of an issue body's `## Acceptance criteria` section; a FileFormatError when it has none. */
export const readCriteria = (body: string, file = '<stdin>'): Criterion[] => scanCriteria(body, file).criteria;

const NO_SECTION = 'no "## Acceptance criteria" section (a heading "Acceptance criteria" followed by a list)';
const NO_BOX = 'has no checkbox to tick: expected "- [ ] TEXT" or "1. [ ] TEXT"';

/** Tick criterion `k` (from 1) of the body: `[ ]` -> `[x]`, that one line changed, every other byte kept. */
export function tickCriterion(body: string, k: number, file = '<stdin>'): string {
  if (!Number.isSafeInteger(k) || k < 1)
    throw new UsageError(`Expected the criterion number to be a positive integer, got ${k}`);
  const { criteria, boxes, headingLine } = scanCriteria(body, file);
  const criterion = criteria[k - 1];
  const count = `${criteria.length} criteri${criteria.length === 1 ? 'on' : 'a'}`;
  if (criterion === undefined)
    throw new FileFormatError(file, headingLine, `"## Acceptance criteria" has ${count}, so no criterion ${k}`);
  if (!criterion.checkable) throw new FileFormatError(file, criterion.line, `criterion ${k} ${NO_BOX}`);
  if (criterion.checked) throw new UsageError(`${file}:${criterion.line}: criterion ${k} is already ticked`);
  const at = boxes[k - 1] as number;
  return `${body.slice(0, at)}x${body.slice(at + 1)}`;
}

const ITEM = /^(?:[-*+]|[0-9]{1,9}[.)])(?=[ \t]|$)/;
const BOX = /^\[([ xX])\](?=[ \t]|$)/;
const HEADING = /^acceptance criteria(?:\s*:)?$/i;

function scanCriteria(body: string, file: string): { criteria: Criterion[]; boxes: number[]; headingLine: number } {
  const [criteria, boxes] = [[] as Criterion[], [] as number[]];
  let [headingLine, level, inSection] = [0, 0, false];
  walkMarkdown(body, (start, end, n, lineLevel, heading) => {
    if (lineLevel > 0) {
      if (inSection) inSection = lineLevel > level;
      else if (headingLine === 0 && HEADING.test(heading)) [headingLine, level, inSection] = [n, lineLevel, true];
      return;
    }
    // A list item at column 0; its text is its first line after the marker and the box, trimmed.
    const line = inSection ? body.slice(start, end) : '';
    const marker = ITEM.exec(line)?.[0];
    if (marker === undefined || (marker.length === 1 && isThematicBreak(line))) return;
    let p = marker.length;
    while (isBlank(line[p])) p++;
    const box = BOX.exec(line.slice(p, p + 4));
    const text = trimBlanks(line.slice(box === null ? p : p + 3));
    const [checked, checkable] = [box !== null && box[1] !== ' ', box !== null];
    criteria.push({ index: criteria.length + 1, text, checked, checkable, line: n });
    boxes.push(start + p + 1);
  });
  if (headingLine === 0) throw new FileFormatError(file, undefined, NO_SECTION);
  return { criteria, boxes, headingLine };
}
