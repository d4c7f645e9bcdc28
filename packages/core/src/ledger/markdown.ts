// Just enough CommonMark for the ledger and criteria: fences and HTML comment blocks skipped, ATX headings only.

/** A line: its offsets in the text (no ending), 1-based number, and heading level (0: not a heading) and text. */
export type LineVisitor = (start: number, end: number, n: number, level: number, heading: string) => void;

const HEADING = /^ {0,3}(#{1,6})(?=[ \t]|$)(.*)$/s;
const FENCE = /^ {0,3}(`{3,}(?!.*`)|~{3,})/s;
const FENCE_CLOSE = /^ {0,3}(`+|~+)[ \t]*$/;
const COMMENT = /^ {0,3}<!--/;
// A line that starts with none of ` #`~<` (or is empty) can be neither a heading nor a block's opening.
const mayOpen = (c: number): boolean => c === 32 || c === 35 || c === 96 || c === 126 || c === 60;

/** A space or a tab: the only whitespace Markdown structure cares about (other Unicode spaces are data). */
export const isBlank = (char: string | undefined): boolean => char === ' ' || char === '\t';

const EDGE_BLANKS = /^[ \t]+|[ \t]+$/g;
export const trimBlanks = (value: string): string => value.replace(EDGE_BLANKS, '');

const BREAK = /^(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/;
/** `---`, `* * *`, `___`: three or more of one of these characters, blanks between. */
export const isThematicBreak = (line: string): boolean => BREAK.test(line);

// A heading's text: blanks and a closing run of `#` (after a blank, or alone) removed.
const headingText = (raw: string): string => trimBlanks(trimBlanks(raw).replace(/(^|[ \t])#+$/, '$1'));

/** Visit lines outside fences and comment blocks (BOM skipped, \r\n too); returns an unclosed block's line, else 0. */
export function walkMarkdown(text: string, visit: LineVisitor): number {
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let [open, openedAt] = ['', 0]; // the fence's opening run, or `<!--` inside a comment block, and its line
  for (let n = 1; start <= text.length; n++) {
    const newline = text.indexOf('\n', start);
    const next = newline === -1 ? text.length + 1 : newline + 1;
    const end = next - 1 > start && text.charCodeAt(next - 2) === 13 ? next - 2 : next - 1;
    const at = start;
    start = next;
    if (open === '' && (end === at || !mayOpen(text.charCodeAt(at)))) {
      visit(at, end, n, 0, '');
      continue;
    }
    const line = text.slice(at, end);
    if (open !== '') {
      if (closes(open, line)) [open, openedAt] = ['', 0];
      continue;
    }
    const heading = HEADING.exec(line);
    const fence = FENCE.exec(line);
    if (heading !== null) visit(at, end, n, (heading[1] as string).length, headingText(heading[2] as string));
    else if (fence !== null) [open, openedAt] = [fence[1] as string, n];
    else if (!COMMENT.test(line)) visit(at, end, n, 0, '');
    else if (!line.slice(line.indexOf('<!--') + 2).includes('-->')) [open, openedAt] = ['<!--', n];
  }
  return openedAt;
}

function closes(open: string, line: string): boolean {
  if (open === '<!--') return line.includes('-->');
  const run = FENCE_CLOSE.exec(line)?.[1];
  return run !== undefined && run[0] === open[0] && run.length >= open.length;
}
