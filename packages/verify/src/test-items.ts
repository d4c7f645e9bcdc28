// A globbed Rust file's tests are its `#[cfg(test)]` items: green and refactor change only the code, red only them.

export function hasInlineTests(path: string, conventional: boolean): boolean {
  return !conventional && path.endsWith('.rs');
}

/** The file's test items and the code around them (both as text, each item or gap in order, joined by a newline). */
export function splitTestItems(text: string): { tests: string; code: string } {
  const items = rustTestItems(text);
  const tests: string[] = [];
  const code: string[] = [];
  let at = 0;
  for (const [start, end] of items) {
    code.push(text.slice(at, start));
    tests.push(text.slice(start, end));
    at = end;
  }
  code.push(text.slice(at));
  const gaps = code.map((gap) => gap.trim()).filter((gap) => gap !== '');
  return { tests: tests.join('\n'), code: gaps.join('\n') };
}

const CFG_TEST = /#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]/y;

/** The [start, end) ranges of the `#[cfg(test)]` items of a Rust source, the attribute included. */
export function rustTestItems(text: string): [number, number][] {
  const found: [number, number][] = [];
  let end = 0;
  for (const i of codeAt(text, 0)) {
    CFG_TEST.lastIndex = i;
    if (i < end || text[i] !== '#' || !CFG_TEST.test(text)) continue;
    end = itemEnd(text, CFG_TEST.lastIndex);
    found.push([i, end]);
  }
  return found;
}

// Each index from `from` on that is code, not inside a comment or a literal.
function* codeAt(text: string, from: number): Generator<number> {
  for (let i = from; i < text.length; ) {
    const skipped = skipTrivia(text, i);
    if (skipped === i) yield i++;
    else i = skipped;
  }
}

// The end of the item starting at `from` (after its attribute): the `;` before any `{`, or the `}` closing the first.
function itemEnd(text: string, from: number): number {
  let depth = 0;
  for (const i of codeAt(text, from)) {
    const c = text[i] as string;
    if ('{(['.includes(c)) depth++;
    else if ('})]'.includes(c)) {
      if (--depth === 0 && c === '}') return i + 1;
    } else if (c === ';' && depth === 0) return i + 1;
  }
  return text.length;
}

// Past a comment, a string, a raw string or a char literal starting at `i`; `i` itself when none starts there.
function skipTrivia(text: string, i: number): number {
  const c = text[i];
  const next = text[i + 1];
  if (c === '/' && next === '/') {
    const end = text.indexOf('\n', i);
    return end === -1 ? text.length : end + 1;
  }
  if (c === '/' && next === '*') {
    let depth = 1;
    let j = i + 2;
    while (j < text.length && depth > 0) {
      if (text[j] === '/' && text[j + 1] === '*') {
        depth++;
        j += 2;
      } else if (text[j] === '*' && text[j + 1] === '/') {
        depth--;
        j += 2;
      } else j++;
    }
    return j;
  }
  // A raw string: r"...", r#"..."#, br##"..."## (not an identifier ending in r).
  const raw = /^b?r(#*)"/.exec(text.slice(i, i + 260));
  if (raw !== null && !/[\w]/.test(text[i - 1] ?? '')) {
    const close = `"${raw[1] as string}`;
    const end = text.indexOf(close, i + raw[0].length);
    return end === -1 ? text.length : end + close.length;
  }
  if (c === '"') {
    let j = i + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    return j + 1;
  }
  // A char literal ('x', '\n', '\u{1F600}'), never a lifetime ('a).
  if (c === "'") {
    const char = /^'(?:\\(?:u\{[0-9a-fA-F]{1,6}\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'/su.exec(text.slice(i, i + 16));
    if (char !== null) return i + char[0].length;
  }
  return i;
}
