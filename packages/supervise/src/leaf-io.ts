// A leaf's stdin is an unlinked file, not a pipe: a pipe needs our event loop, which a busy caller would block.
import { closeSync, fstatSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { LeapError } from '@leap/core';
import { newRunId } from './leaf-files.js';

/** What the leaf reads and where it writes; each one left out is the supervisor's own. */
export interface LeafIo {
  input?: string | Uint8Array;
  /** Files for the leaf's stdout and stderr, created or emptied once NAME is locked (never a live run's). */
  stdoutFile?: string;
  stderrFile?: string;
}

/** A read-write descriptor of a new file in `dir`, already unlinked (bwrap's status file: no pipe, issue 25). */
export function openUnlinked(dir: string, kind: string): number {
  const file = join(dir, `.${kind}.${newRunId()}.tmp`);
  return closedOnError(openSync(file, 'wx+', 0o600), () => unlinkSync(file));
}

function closedOnError(fd: number, use: () => void): number {
  try {
    use();
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** A read-write descriptor of an unlinked file in `dir` holding `input`, its offset at 0 for the leaf to read. */
export function openInput(dir: string, input: string | Uint8Array): number {
  const fd = openUnlinked(dir, 'input');
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  // Positional writes (pwrite) leave the descriptor's offset at 0, where the leaf starts reading.
  return closedOnError(fd, () => {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at, at);
  });
}

export function openOutput(file: string, stream: 'stdout' | 'stderr'): number {
  try {
    return openSync(file, 'w');
  } catch (cause) {
    throw new LeapError(`cannot open ${file} for the leaf's ${stream}: ${(cause as Error).message}`, { cause });
  }
}

/** Read from offset 0 (bwrap's writes moved the file's), then closed. */
export function readStatus(fd: number): string {
  try {
    const buffer = Buffer.alloc(Math.min(fstatSync(fd).size, 65_536));
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString();
  } finally {
    closeSync(fd);
  }
}
