// Reading small /proc files. They report size 0, so readFileSync allocates 64 KiB for each read, and
// a supervisor reads hundreds of them a second: one buffer, reused and grown as needed, serves all.
import { closeSync, openSync } from 'node:fs';
import { readToEnd, type ReadBuffer } from './read-file.js';

const shared: ReadBuffer = { buffer: Buffer.allocUnsafe(4096) };

/**
 * The whole content of a /proc file (`/proc/PID/stat`, `environ`, `io`), or null when it cannot be read
 * (the process is gone, or not ours to look at). The bytes are a view of a shared buffer: valid until
 * the next call, so copy or decode them first.
 */
export function readProcBytes(path: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    return readToEnd(fd, shared);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
