import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';

/** `fn()`, or `fallback` when it throws: for reads that may fail (a missing file, a torn JSON line). */
export function orElse<T, F>(fn: () => T, fallback: F): T | F {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

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
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return '';
  }
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
