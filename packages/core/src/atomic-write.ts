// Atomic file replacement: a reader sees the old content or the new, never a part.
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomHex } from './random-hex.js';

/** Options of `writeFileAtomic`. */
export interface AtomicWriteOptions {
  /** The new file's mode (default 0o644). */
  mode?: number;
  /**
   * A fixed temp path in the same folder, for callers whose recovery must find a half-written
   * temp after a crash (a journal). Default: a fresh random name, created exclusively.
   */
  tempPath?: string;
  /**
   * Flush the file and its folder to disk before and after the rename (default true). Files that
   * describe live processes (pid, exit) can skip it: a power loss ends those processes anyway.
   */
  durable?: boolean;
}

/** Where a producer of text pushes its parts, one at a time, in order: an array, or a file being written. */
export interface TextParts {
  push(part: string): unknown;
}

/**
 * Write `data` to `file` through a temp file in the same folder, fsync, rename, then fsync the folder.
 * `data` may be text in parts, or a function that pushes them: each part is encoded into a buffer
 * written whenever it fills, so a large document is never in memory whole (and, pushed by a function,
 * each part can die young). Returns the number of bytes written.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array | readonly string[] | ((out: TextParts) => void), options: AtomicWriteOptions | number = {}): number {
  const { mode = 0o644, tempPath, durable = true } = typeof options === 'number' ? { mode: options } : options;
  const dir = dirname(file);
  const tmp = tempPath ?? join(dir, `.${basename(file)}.${process.pid}.${randomHex(4)}.tmp`);
  // A fixed temp left by a killed writer is removed first, so the new one gets `mode`.
  if (tempPath !== undefined) unlinkIfPresent(tempPath);
  const fd = openSync(tmp, 'wx', mode);
  let written = 0;
  try {
    if (typeof data === 'string') written = writeAll(fd, Buffer.from(data));
    else if (typeof data === 'function' || isParts(data)) {
      const out = new PartWriter(fd);
      if (typeof data === 'function') data(out);
      else for (const part of data) out.push(part);
      written = out.end();
    } else written = writeAll(fd, data);
    if (durable) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(tmp);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(tmp, file);
  } catch (error) {
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw error;
  }
  if (durable) syncDir(dir);
  return written;
}

const isParts = (data: Uint8Array | readonly string[]): data is readonly string[] => Array.isArray(data);

function writeAll(fd: number, bytes: Uint8Array): number {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
  return bytes.length;
}

// Text gathered until it is this long (in UTF-16 units), then encoded and written: one encoding call per
// batch, not per part (a report pushes tens of thousands of short parts, and each call into Node's
// Buffer#write costs more than the bytes it encodes).
const BATCH_UNITS = 16 * 1024;

// Parts joined in batches, each encoded into one reused buffer (three bytes of UTF-8 at most per unit).
class PartWriter implements TextParts {
  private readonly buffer = Buffer.allocUnsafe(BATCH_UNITS * 3);
  private batch: string[] = [];
  private units = 0;
  private written = 0;

  constructor(private readonly fd: number) {}

  push(part: string): void {
    this.batch.push(part);
    this.units += part.length;
    if (this.units >= BATCH_UNITS) this.flush();
  }

  /** Write what is gathered; the bytes written in all. */
  end(): number {
    this.flush();
    return this.written;
  }

  private flush(): void {
    const text = this.batch.join('');
    this.batch = [];
    this.units = 0;
    if (text.length * 3 > this.buffer.length) this.written += writeAll(this.fd, Buffer.from(text));
    else this.written += writeAll(this.fd, this.buffer.subarray(0, this.buffer.write(text, 0)));
  }
}

/** Flush a folder's entries, so a rename survives a crash; file systems that refuse it are ignored. */
export function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems cannot fsync a directory; the rename is still atomic for readers.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Unlink `file`; one already gone is fine (unlinkSync, not rmSync: rmSync loads Node's internal rimraf on first use). */
export function unlinkIfPresent(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
