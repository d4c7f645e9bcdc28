// Commit messages as `git commit -m` leaves them (its default "whitespace" clean-up).

/** Strip trailing blanks from every line, drop leading and trailing blank lines, squeeze runs of blank lines. */
export function cleanupMessage(text: string): string {
  const out: string[] = [];
  let blank = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[ \t\r\f\v]+$/u, '');
    if (line === '') {
      blank = out.length > 0;
      continue;
    }
    if (blank) out.push('');
    blank = false;
    out.push(line);
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

/** The first line of a message: the reflog's subject. */
export function messageSubject(message: string): string {
  const end = message.indexOf('\n');
  return end === -1 ? message : message.slice(0, end);
}
