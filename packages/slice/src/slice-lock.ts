// One live engine per slice: `.leap/SLICE/engine.lock`, whose dead holder's lock is taken over
// (a SIGKILLed engine does not block the next run).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LeapError, readLockHolder, tryLock, type Lock } from '@leap/core';

/** The slice's records folder, `.leap/SLICE/` under the repository root. */
export function sliceDir(repoRoot: string, sliceId: string): string {
  return join(repoRoot, '.leap', sliceId);
}

/** The lock file of the slice's engine. */
export function sliceLockFile(repoRoot: string, sliceId: string): string {
  return join(sliceDir(repoRoot, sliceId), 'engine.lock');
}

/** Take the slice's engine lock, or throw a LeapError (exit 2) naming the live process that holds it. */
export function lockSlice(repoRoot: string, sliceId: string): { release(): void } {
  mkdirSync(sliceDir(repoRoot, sliceId), { recursive: true });
  const file = sliceLockFile(repoRoot, sliceId);
  const lock: Lock | null = tryLock(file, { slice: sliceId });
  if (lock !== null) return lock;
  const holder = readLockHolder(file);
  throw new LeapError(`slice ${JSON.stringify(sliceId)} is being run by live process ${holder?.pid ?? '?'} (${file}); wait for it to end or stop it`, { exitCode: 2 });
}

/** The pid of the live engine holding the slice's lock, or null (no lock, or its holder is dead). */
export function liveEngine(repoRoot: string, sliceId: string): number | null {
  const file = sliceLockFile(repoRoot, sliceId);
  if (readLockHolder(file) === null) return null;
  const probe = tryLock(file);
  if (probe !== null) {
    probe.release();
    return null;
  }
  return readLockHolder(file)?.pid ?? null;
}
