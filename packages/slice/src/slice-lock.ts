// One live engine per slice; a dead holder's lock is taken over (a SIGKILLed engine does not block the next run).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LeapError, readLockHolder, tryLock, type Lock } from '@leap/core';

const sliceDir = (repoRoot: string, sliceId: string): string => join(repoRoot, '.leap', sliceId);

export const sliceLockFile = (repoRoot: string, sliceId: string) => join(sliceDir(repoRoot, sliceId), 'engine.lock');

/** Throws LeapError (exit 2) naming a live holder; `deadEngine`: a dead holder taken over (its leaves may run). */
export function lockSlice(repoRoot: string, sliceId: string): { release(): void; deadEngine: number | null } {
  mkdirSync(sliceDir(repoRoot, sliceId), { recursive: true });
  const file = sliceLockFile(repoRoot, sliceId);
  const before = readLockHolder(file)?.pid ?? null;
  const lock: Lock | null = tryLock(file, { slice: sliceId });
  if (lock !== null)
    return { release: () => lock.release(), deadEngine: before !== null && before !== process.pid ? before : null };
  throw sliceBusy(sliceId, readLockHolder(file)?.pid ?? '?', file);
}

export function sliceBusy(sliceId: string, pid: number | string, file: string): LeapError {
  const running = `slice ${JSON.stringify(sliceId)} is being run by live process ${pid} (${file})`;
  return new LeapError(`${running}; wait for it to end or stop it`, { exitCode: 2 });
}

/** The pid of the live engine holding the slice's lock, or null (no lock, or its holder is dead). */
export function liveEngine(repoRoot: string, sliceId: string): number | null {
  const file = sliceLockFile(repoRoot, sliceId);
  if (readLockHolder(file) === null) return null;
  const probe = tryLock(file);
  return probe === null ? (readLockHolder(file)?.pid ?? null) : (probe.release(), null);
}
