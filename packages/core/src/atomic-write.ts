// Atomic file replacement: a reader sees the old content or the new, never a part.
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomHex } from './random-hex.js';

/** Write `data` to `file` through a temp file in the same folder, fsync, rename, then fsync the folder. */
export function writeFileAtomic(file: string, data: string | Uint8Array, mode = 0o644): void {
  const dir = dirname(file);
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${randomHex(4)}.tmp`);
  const fd = openSync(tmp, 'wx', mode);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    fsyncSync(fd);
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
  syncDir(dir);
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
