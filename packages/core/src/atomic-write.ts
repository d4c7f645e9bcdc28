// Atomic file replacement: a reader sees the old content or the new, never a part.
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomHex } from './random-hex.js';

export interface AtomicWriteOptions {
  /** The new file's mode (default 0o644). */
  mode?: number;
  /** A fixed temp path in the same folder, for a recovery that must find it (a journal); default: a random name. */
  tempPath?: string;
  /** fsync file and folder (default true); pid and exit files skip it: a power loss ends those processes anyway. */
  durable?: boolean;
}

/** Where a producer of text pushes its parts, one at a time, in order: an array, or a file being written. */
export interface TextParts {
  push(part: string): unknown;
}

/** Via a temp in the same folder; text in parts is written in batches, never whole in memory. Returns the bytes. */
export function writeFileAtomic(
  file: string,
  data: string | Uint8Array | readonly string[] | ((out: TextParts) => void),
  options: AtomicWriteOptions | number = {},
): number {
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

// Parts are encoded in batches of this many UTF-16 units: a Buffer#write call costs more than a short part.
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

/** Unlink `file`; one already gone is fine (unlinkSync: rmSync loads Node's internal rimraf on first use). */
export function unlinkIfPresent(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
