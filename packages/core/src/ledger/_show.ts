// Internal: how the ledger's messages quote what they found. Titles may run to
// thousands of characters and hold anything, so they are JSON-quoted (control
// characters, quotes and right-to-left marks become visible) and cut short.

const TITLE_SHOWN = 80;
const LINE_SHOWN = 60;

/** Quote a title for a message, cut short (never inside a surrogate pair) when long. */
export function showTitle(title: string): string {
  if (title.length <= TITLE_SHOWN) return JSON.stringify(title);
  const last = title.charCodeAt(TITLE_SHOWN - 1);
  const cut = last >= 0xd800 && last <= 0xdbff ? TITLE_SHOWN - 1 : TITLE_SHOWN;
  return `${JSON.stringify(title.slice(0, cut))}… (${title.length} characters)`;
}

/** Quote the line text[start, end) for a message, cut short when long. */
export function showLine(text: string, start: number, end: number): string {
  return JSON.stringify(end - start > LINE_SHOWN ? `${text.slice(start, start + LINE_SHOWN)}…` : text.slice(start, end));
}
