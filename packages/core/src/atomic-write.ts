// Atomic file replacement: a reader sees the old content or the new, never a part.
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { orElse } from './errors.js';

export interface AtomicWriteOptions {
  mode?: number;
  /** A fixed temp path in the same folder, for a recovery that must find it (a journal); default: a random name. */
  tempPath?: string;
  /** fsync file and folder (default true); pid and exit files skip it: a power loss ends those processes anyway. */
  durable?: boolean;
}

export type TextParts = { push(part: string): unknown };

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
    else if (typeof data === 'function' || isParts(data)) written = writeParts(fd, data);
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
    orElse(() => unlinkSync(tmp), null);
    throw error;
  }
  if (durable) syncDir(dir);
  return written;
}

const isParts = (data: Uint8Array | readonly string[]): data is readonly string[] => Array.isArray(data);

const writeAll = (fd: number, bytes: Uint8Array): number => (writeFileSync(fd, bytes), bytes.length);

// Parts are joined in batches of this many UTF-16 units, each encoded into one reused buffer (3 bytes a unit at most).
const BATCH_UNITS = 16 * 1024;

function writeParts(fd: number, parts: readonly string[] | ((out: TextParts) => void)): number {
  const buffer = Buffer.allocUnsafe(BATCH_UNITS * 3);
  let [batch, units, written] = [[] as string[], 0, 0];
  const flush = (): void => {
    const text = batch.join('');
    [batch, units] = [[], 0];
    written += writeAll(fd, text.length > BATCH_UNITS ? Buffer.from(text) : buffer.subarray(0, buffer.write(text)));
  };
  const out = {
    push(part: string) {
      batch.push(part);
      units += part.length;
      if (units >= BATCH_UNITS) flush();
    },
  };
  if (typeof parts === 'function') parts(out);
  else for (const part of parts) out.push(part);
  flush();
  return written;
}

export function syncDir(dir: string): void {
  const fd = orElse(() => openSync(dir, 'r'), null);
  if (fd === null) return;
  orElse(() => fsyncSync(fd), null);
  closeSync(fd);
}

/** Unlink `file`; one already gone is fine (unlinkSync: rmSync loads Node's internal rimraf on first use). */
export function unlinkIfPresent(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

// For temp names and lock tokens, never secrets: Math.random spares loading node:crypto, and 'wx' guards collisions.
export const randomHex = (bytes: number): string =>
  Array.from({ length: bytes }, () => (Math.floor(Math.random() * 256) + 256).toString(16).slice(1)).join('');
