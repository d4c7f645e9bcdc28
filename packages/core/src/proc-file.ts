// Reading small /proc files. They report size 0, so readFileSync allocates 64 KiB for each read, and
// a supervisor reads hundreds of them a second: one buffer, reused and grown as needed, serves all.
import { closeSync, openSync, readSync } from 'node:fs';

let buffer = Buffer.allocUnsafe(4096);

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
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const bigger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(bigger, 0, 0, length);
        buffer = bigger;
      }
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) return buffer.subarray(0, length);
      length += n;
    }
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
