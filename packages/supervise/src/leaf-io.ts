// The files a leaf reads and writes when its supervisor runs inside another program (supervise()'s io).
// Its stdin is a file of its own, already unlinked, rather than a pipe: a pipe needs this process's event
// loop to deliver the bytes and the end of input, so a caller busy on the main thread (compiling a schema
// while reviewers think) would keep every leaf waiting for its prompt.
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { LeapError } from '@leap/core';
import { newRunId } from './leaf-files.js';

/** A read-write descriptor of an unlinked file in `dir` holding `input`, its offset at 0 for the leaf to read. */
export function openInput(dir: string, input: string | Uint8Array): number {
  const file = join(dir, `.input.${newRunId()}.tmp`);
  const fd = openSync(file, 'wx+', 0o600);
  try {
    unlinkSync(file);
    const bytes = typeof input === 'string' ? Buffer.from(input) : input;
    // Positional writes (pwrite) leave the descriptor's offset at 0, where the leaf starts reading.
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at, at);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** A descriptor of `file`, created or emptied, for the leaf's `stream`; a LeapError saying which file failed. */
export function openOutput(file: string, stream: 'stdout' | 'stderr'): number {
  try {
    return openSync(file, 'w');
  } catch (cause) {
    throw new LeapError(`cannot open ${file} for the leaf's ${stream}: ${(cause as Error).message}`, { cause });
  }
}
