/** Where JSON.parse stopped, as `{ line, column }`, from its message's byte position. */
export function jsonErrorPosition(text: string, message: string): { line: number; column: number } {
  const at = /at position (\d+)/.exec(message);
  const offset = at === null ? text.length : Number(at[1]);
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

/** The parsed value, or the problem as `LINE:COLUMN: malformed JSON: WHY`. */
export function parseJsonText(text: string): { value: unknown } | { problem: string; line: number; column: number } {
  // An editor's byte order mark is not content.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { value: JSON.parse(body) as unknown };
  } catch (error) {
    const message = (error as Error).message;
    const { line, column } = jsonErrorPosition(body, message);
    const why = message
      .replace(/ in JSON at position \d+.*$/s, '')
      .replace(/^Unexpected end of JSON input$/, 'the text ends before the JSON value does');
    return { problem: `${line}:${column}: malformed JSON: ${why}`, line, column };
  }
}
