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

/** Write `data` to `file` through a temp file in the same folder, fsync, rename, then fsync the folder. */
export function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions | number = {}): void {
  const { mode = 0o644, tempPath, durable = true } = typeof options === 'number' ? { mode: options } : options;
  const dir = dirname(file);
  const tmp = tempPath ?? join(dir, `.${basename(file)}.${process.pid}.${randomHex(4)}.tmp`);
  // A fixed temp left by a killed writer is removed first, so the new one gets `mode`.
  if (tempPath !== undefined) removeIfPresent(tempPath);
  const fd = openSync(tmp, 'wx', mode);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
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
