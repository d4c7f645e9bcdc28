// /proc files report size 0 (readFileSync takes 64 KiB each): one shared buffer serves a supervisor's hundreds.
import { closeSync, openSync } from 'node:fs';
import { readToEnd, type ReadBuffer } from './read-file.js';

const shared: ReadBuffer = { buffer: Buffer.allocUnsafe(4096) };

/** Null when unreadable (gone, not ours); the bytes are a view of a shared buffer, valid until the next call. */
export function readProcBytes(path: string): Buffer | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    return readToEnd(fd, shared);
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
