// The `key=value` line format of pid, exit and lock files.

export function formatKeyValues(
  first: string | null,
  values: Record<string, string | number | undefined | null>,
): string {
  const lines = first === null ? [] : [first];
  for (const [key, value] of Object.entries(values))
    if (value !== undefined && value !== null) lines.push(`${key}=${String(value).replace(/[\r\n]/g, ' ')}`);
  return `${lines.join('\n')}\n`;
}

/** Parse such a file: its first line, and the `key=value` lines after it (later keys win). */
export function parseKeyValues(text: string): { first: string; values: Record<string, string> } {
  const lines = text.split('\n');
  const values: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const eq = line.indexOf('=');
    if (eq > 0) values[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return { first: lines[0] ?? '', values };
}
