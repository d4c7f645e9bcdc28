// Internal: the line walker under the ledger scanner and the criteria reader.
// Lines end at \n only; a \r just before it (or at the very end of the text) is
// part of the line ending, so CRLF, LF, mixed endings and a missing final newline
// all read the same and no offset is ever lost. It knows just enough CommonMark
// to keep code and comments out of the way:
// - ATX headings (`#` to `######`, up to 3 spaces of indentation); setext
//   headings (text underlined with === or ---) are not recognised;
// - fenced code: an opening run of 3+ backticks or tildes (up to 3 spaces of
//   indentation, wherever the line sits in a list) hides every line up to a
//   closing run of the same character at least as long, followed only by spaces
//   or tabs, or up to the end of the text;
// - HTML comment blocks: a line starting with `<!--` hides every line up to the
//   first one that contains `-->`.
// It runs over every line of a 10,000-step ledger on the start-up path of
// `leap-ledger current`: a line that starts with none of ` `, `#`, `` ` ``, `~`
// and `<` is plain text after one comparison, and nothing is allocated per line.

/** A line that is neither a heading nor hidden. */
export const TEXT = 0;
/** An ATX heading, outside code and comments. */
export const HEADING = 1;
/** A line of a fence or an HTML comment block, delimiters included. */
const HIDDEN = 2;

const SPACE = 32;
const TAB = 9;
const CR = 13;
const HASH = 35;
const LESS = 60;
const BACKTICK = 96;
const TILDE = 126;

/** True for a space or a tab, the only whitespace Markdown structure cares about. */
export function isBlank(code: number): boolean {
  return code === SPACE || code === TAB;
}

/** Remove spaces and tabs at both ends (not other Unicode spaces: those are data). */
export function trimBlanks(value: string): string {
  let a = 0;
  let b = value.length;
  while (a < b && isBlank(value.charCodeAt(a))) a++;
  while (b > a && isBlank(value.charCodeAt(b - 1))) b--;
  return value.slice(a, b);
}

/** Is text[start, end) a thematic break: `---`, `***`, `___`, `- - -` (3+ of one character, blanks between)? */
export function isThematicBreak(text: string, start: number, end: number): boolean {
  const char = text.charCodeAt(start);
  if (char !== 45 && char !== 42 && char !== 95) return false;
  let count = 0;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === char) count++;
    else if (!isBlank(code)) return false;
  }
  return count >= 3;
}

/** Walks the lines of a Markdown text: `while (walker.advance())`, then read the fields. */
export class MarkdownWalker {
  /** 1-based number of the current line. */
  number = 0;
  /** Offset of the line's first character (after a byte-order mark on line 1). */
  start = 0;
  /** Offset just past its content: before `\r\n`, `\n`, or a final `\r`. */
  end = 0;
  /** TEXT, HEADING or HIDDEN. */
  kind = TEXT;
  /** A heading's level, 1 to 6 (read it when kind is HEADING). */
  level = 0;
  /** A heading's text, surrounding blanks and closing `#`s removed (read it when kind is HEADING). */
  heading = '';
  /** True on the line that opens a fence or a multi-line HTML comment. */
  opens = false;
  /** After the walk: the line of a fence or comment left open at the end, else 0. */
  unclosed = 0;
  private readonly text: string;
  private next = 0;
  private fenceChar = 0;
  private fenceLength = 0;
  private inComment = false;

  constructor(text: string) {
    this.text = text;
    if (text.charCodeAt(0) === 0xfeff) this.next = 1;
  }

  /** Move to the next line; false past the last one. */
  advance(): boolean {
    const text = this.text;
    const pos = this.next;
    if (pos >= text.length) return false;
    const newline = text.indexOf('\n', pos);
    let end = newline === -1 ? text.length : newline;
    this.next = end + 1;
    if (end > pos && text.charCodeAt(end - 1) === CR) end--;
    this.number++;
    this.start = pos;
    this.end = end;
    this.opens = false;
    const code = text.charCodeAt(pos);
    if (this.fenceLength === 0 && !this.inComment) {
      if (code !== SPACE && code !== HASH && code !== BACKTICK && code !== TILDE && code !== LESS) {
        this.kind = TEXT;
      } else {
        this.classify(pos, end);
      }
    } else {
      this.kind = HIDDEN;
      if (this.fenceLength > 0 ? this.closesFence(pos, end) : text.slice(pos, end).includes('-->')) {
        this.fenceLength = 0;
        this.inComment = false;
        this.unclosed = 0;
      }
    }
    return true;
  }

  // A line outside code and comments that may open a block or be a heading.
  private classify(pos: number, end: number): void {
    const text = this.text;
    let i = pos;
    while (i < end && i - pos < 4 && text.charCodeAt(i) === SPACE) i++;
    const code = i - pos < 4 && i < end ? text.charCodeAt(i) : 0;
    this.kind = HIDDEN;
    if (code === BACKTICK || code === TILDE) {
      let j = i;
      while (j < end && text.charCodeAt(j) === code) j++;
      if (j - i >= 3 && (code === TILDE || !text.slice(j, end).includes('`'))) {
        this.fenceChar = code;
        this.fenceLength = j - i;
        this.open();
        return;
      }
    } else if (code === LESS && text.startsWith('<!--', i)) {
      if (!text.slice(i + 2, end).includes('-->')) {
        this.inComment = true;
        this.open();
      }
      return;
    } else if (code === HASH && this.readHeading(i, end)) {
      return;
    }
    this.kind = TEXT;
  }

  /** Jump to offset `next`, past `lines` lines the caller read itself (plain text lines: no block opens or closes). */
  skip(next: number, lines: number): void {
    this.next = next;
    this.number += lines;
  }

  private open(): void {
    this.opens = true;
    this.unclosed = this.number;
  }

  // A closing fence: up to 3 spaces, a run of the opening character at least as long, then only blanks.
  private closesFence(start: number, end: number): boolean {
    const text = this.text;
    let i = start;
    while (i < end && i - start < 4 && text.charCodeAt(i) === SPACE) i++;
    if (i - start > 3) return false;
    let j = i;
    while (j < end && text.charCodeAt(j) === this.fenceChar) j++;
    if (j - i < this.fenceLength) return false;
    while (j < end && isBlank(text.charCodeAt(j))) j++;
    return j === end;
  }

  // The ATX heading starting at `i` (a `#`); false when the line is not one (`#tag`, 7 `#`s).
  private readHeading(i: number, end: number): boolean {
    const text = this.text;
    let j = i;
    while (j < end && text.charCodeAt(j) === HASH) j++;
    if (j - i > 6 || (j < end && !isBlank(text.charCodeAt(j)))) return false;
    let a = j;
    let b = end;
    while (a < b && isBlank(text.charCodeAt(a))) a++;
    while (b > a && isBlank(text.charCodeAt(b - 1))) b--;
    let k = b;
    while (k > a && text.charCodeAt(k - 1) === HASH) k--;
    if (k < b && (k === a || isBlank(text.charCodeAt(k - 1)))) {
      b = k;
      while (b > a && isBlank(text.charCodeAt(b - 1))) b--;
    }
    this.kind = HEADING;
    this.level = j - i;
    this.heading = text.slice(a, b);
    return true;
  }
}
