// Reading files, and JSON objects out of other programs' output (agent CLIs' answers) and files people write.
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { FileFormatError, orElse } from './errors.js';

export function readFileIfExists(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The text of the file's last `bytes` bytes after offset `from` (a log's tail), or '' when it cannot be read. */
export function readTail(file: string, bytes: number, from = 0): string {
  const fd = orElse(() => openSync(file, 'r'), null);
  if (fd === null) return '';
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(from, size - bytes);
    const buffer = Buffer.alloc(Math.max(0, size - start));
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, start)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** A read buffer `readToEnd` may replace with a bigger one; keep it to reuse the bigger one next time. */
export type ReadBuffer = { buffer: Buffer };

/** A view of one doubling buffer, not readFileSync's chunks copied again; EAGAIN calls `onAgain`, or throws. */
export function readToEnd(fd: number, into: ReadBuffer, onAgain?: () => void): Buffer {
  let length = 0;
  for (;;) {
    if (length === into.buffer.length) {
      const bigger = Buffer.allocUnsafeSlow(into.buffer.length * 2);
      into.buffer.copy(bigger, 0, 0, length);
      into.buffer = bigger;
    }
    let n: number;
    try {
      n = readSync(fd, into.buffer, length, into.buffer.length - length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' && onAgain !== undefined) {
        onAgain();
        continue;
      }
      if (code === 'EOF') break; // how Windows ends a pipe
      throw error;
    }
    if (n === 0) break;
    length += n;
  }
  return into.buffer.subarray(0, length);
}

export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function parseJsonObject(text: string): Record<string, unknown> | null {
  const value: unknown = text.startsWith('{') ? orElse(() => JSON.parse(text), null) : null;
  return isJsonObject(value) ? value : null;
}

export const previewText = (text: string, max = 120): string =>
  JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);

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
