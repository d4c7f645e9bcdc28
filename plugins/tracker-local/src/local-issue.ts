// Reading a local issue file: a `# Title` line, free text, and a `## Acceptance criteria` section.
import { FileFormatError, type TrackerIssue, UsageError, readFileIfExists, showValue } from '@leap/core';
import { readCriteria } from '@leap/core/ledger';

/** Read `.tdd/issues/N.md`; a missing file or a missing title is an error naming the file. */
export function readLocalIssueFile(file: string, number: number): TrackerIssue {
  const text = readFileIfExists(file);
  if (text === null) throw new UsageError(`no issue ${number}: ${file} does not exist`);
  return parseLocalIssue(text, file, number);
}

/** Parse an issue's Markdown: its first non-blank line is `# Title`; the body is what follows it. */
export function parseLocalIssue(text: string, file: string, number: number): TrackerIssue {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = source.split('\n');
  const at = lines.findIndex((line) => line.trim() !== '');
  const first = at === -1 ? undefined : lines[at]?.replace(/\r$/, '');
  const match = first === undefined ? null : /^ {0,3}# +(.*?)(?: +#+)? *$/.exec(first);
  if (match === null || (match[1] ?? '') === '') {
    const found = showValue(first ?? '');
    throw new FileFormatError(file, at === -1 ? 1 : at + 1, `expected a "# Title" line first, found ${found}`);
  }
  const body = lines.slice(at + 1).join('\n');
  const criteria = criteriaOf(source, file);
  return { number, title: match[1] as string, body: body.replace(/^(?:[ \t]*\r?\n)+/, ''), criteria };
}

// The whole text is scanned, so line numbers in errors are the file's; no section means no criteria.
function criteriaOf(text: string, file: string): TrackerIssue['criteria'] {
  try {
    return readCriteria(text, file).map((c) => ({ index: c.index, text: c.text, checked: c.checked }));
  } catch (error) {
    if (error instanceof FileFormatError) return [];
    throw error;
  }
}
