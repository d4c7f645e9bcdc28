// Reading a command's input whole: a file or stdin, as bytes, and those bytes as strict UTF-8.
import { fstatSync, readFileSync, statSync } from 'node:fs';
import { FileFormatError, UsageError, readToEnd } from '@leap/core';

let strict: InstanceType<typeof TextDecoder> | undefined;

/** Decode UTF-8 exactly (a byte-order mark is kept as U+FEFF); other bytes are a FileFormatError naming the line. */
export function decodeUtf8(bytes: Uint8Array, file: string): string {
  // The fast decoder replaces bad bytes with U+FFFD; only a text holding U+FFFD needs the strict check.
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (!text.includes('\uFFFD')) return text;
  strict ??= new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    return strict.decode(bytes);
  } catch (cause) {
    throw new FileFormatError(file, badUtf8Line(bytes), 'expected UTF-8 text, found bytes that are not UTF-8', { cause });
  }
}

// The line of the first invalid byte sequence, found by decoding growing prefixes line by line.
function badUtf8Line(bytes: Uint8Array): number {
  let line = 1;
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x0a) {
      try {
        strict?.decode(bytes.subarray(start, i));
      } catch {
        return line;
      }
      line++;
      start = i + 1;
    }
  }
  return line;
}

/** Read a file whole; a missing file is a UsageError that says what the file should have been. */
export function readFileBytes(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`${path}: no such file (expected ${what})`, { cause: error });
    if (code === 'EISDIR') throw new UsageError(`${path}: is a folder (expected ${what})`, { cause: error });
    throw error;
  }
}

/**
 * True when stdin is a character device other than /dev/null: a terminal (or /dev/zero), which would block
 * or never end. Judged with two stats, without loading node:tty.
 */
export function stdinIsDevice(): boolean {
  try {
    const stdin = fstatSync(0);
    return stdin.isCharacterDevice() && stdin.rdev !== statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Read stdin to its end. A terminal on stdin is a UsageError: queries read a piped ledger.
 * Through core's readToEnd, into one buffer that doubles when full: readFileSync(0) on a pipe reads
 * 64 KiB chunks and then concatenates them, touching every byte's memory twice, and first touches of
 * memory are slow on the virtual machines this runs on (about 3 ms per MiB here).
 */
export function readStdinBytes(isTerminal: boolean, hint: string): Buffer {
  if (isTerminal) throw new UsageError(`expected ${hint} on stdin, found a terminal`);
  // A non-blocking pipe inherited from a parent: wait a little for the writer, then read again.
  return readToEnd(0, { buffer: Buffer.allocUnsafeSlow(1 << 20) }, () => Atomics.wait(pause, 0, 0, 5));
}
