// Reading JSON objects out of other programs' output (agent CLIs' answers, records) and out of files people write.
import { FileFormatError } from './errors.js';

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `text` parsed when it is one JSON object, else null (never throws). */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  if (!text.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : null;
  } catch {
    return null;
  }
}

export function previewText(text: string, max = 120): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const lines = text.slice(0, Math.max(0, offset)).split('\n');
  return { line: lines.length, column: (lines.at(-1) ?? '').length + 1 };
}

/** `text`, the contents of `file`, parsed as JSON; a syntax error is a FileFormatError at its line and column. */
export function parseJsonText(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const offset = /at position (\d+)/.exec(message)?.[1];
    const { line, column } = lineColumn(text, offset === undefined ? text.trimEnd().length : Number(offset));
    const what = message.replace(/ in JSON at position \d+.*$/s, '');
    throw new FileFormatError(file, line, `not JSON: ${what}`, { column });
  }
}

/** Where the property `key` of a JSON object's text is first written, as line and column; the start when it is not. */
export function keyLineColumn(text: string, key: string): { line: number; column: number } {
  const at = new RegExp(`${JSON.stringify(key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:`).exec(text)?.index;
  return lineColumn(text, at ?? 0);
}
