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

/**
 * Write `data` to `file` through a temp file in the same folder, fsync, rename, then fsync the folder.
 * `data` may be the text as parts, written in order as they are encoded (a large document is then never
 * in memory as one string and one buffer). Returns the number of bytes written.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array | readonly string[], options: AtomicWriteOptions | number = {}): number {
  const { mode = 0o644, tempPath, durable = true } = typeof options === 'number' ? { mode: options } : options;
  const dir = dirname(file);
  const tmp = tempPath ?? join(dir, `.${basename(file)}.${process.pid}.${randomHex(4)}.tmp`);
  // A fixed temp left by a killed writer is removed first, so the new one gets `mode`.
  if (tempPath !== undefined) removeIfPresent(tempPath);
  const fd = openSync(tmp, 'wx', mode);
  let written = 0;
  try {
    if (typeof data === 'string') written = writeAll(fd, Buffer.from(data));
    else if (isParts(data)) written = writeParts(fd, data);
    else written = writeAll(fd, data);
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
    try { unlinkSync(tmp); } catch { /* already gone */ }
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

const PART_BUFFER_BYTES = 64 * 1024;

// Parts encoded into one reused buffer, written each time it fills; a part too long for it goes alone.
function writeParts(fd: number, parts: readonly string[]): number {
  const buffer = Buffer.allocUnsafe(PART_BUFFER_BYTES);
  let used = 0;
  let written = 0;
  for (const part of parts) {
    // A UTF-16 unit is at most three bytes of UTF-8 (a surrogate pair, two units, is four).
    if (used + part.length * 3 > buffer.length) {
      written += writeAll(fd, buffer.subarray(0, used));
      used = 0;
    }
    if (part.length * 3 > buffer.length) written += writeAll(fd, Buffer.from(part));
    else used += buffer.write(part, used);
  }
  return written + writeAll(fd, buffer.subarray(0, used));
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

// unlinkSync, not rmSync: rmSync loads Node's internal rimraf on first use.
function removeIfPresent(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
