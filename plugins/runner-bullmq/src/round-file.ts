// The engine's own reading of the queue, for the views; the worker's name is worker-written text (printed escaped).
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { slicePaths, writeFileAtomic, type RoundPhase as Phase } from '@leap/core';

export interface RemoteRound {
  v: 1;
  round: number;
  job: string;
  state: 'queued' | 'building' | 'returned';
  worker: string | null;
  /** From the job's progress the worker signed (progress.ts); null when queued or none said. */
  phase: Phase | null;
  queuedAt: string;
  takenAt: string | null;
  returnedAt: string | null;
  /** The engine's pid: a file whose engine is gone is stale (a killed engine). */
  enginePid: number;
}

/** Write the round's state; never throws (a state folder we cannot write: the round goes on without its picture). */
export function writeRemoteRound(repoRoot: string, slice: string, ball: string, round: RemoteRound): void {
  try {
    const file = slicePaths(repoRoot, slice).remoteRound(ball);
    mkdirSync(dirname(file), { recursive: true });
    writeFileAtomic(file, `${JSON.stringify(round, null, 2)}\n`, { durable: false });
  } catch {}
}

export function removeRemoteRound(repoRoot: string, slice: string, ball: string): void {
  rmSync(slicePaths(repoRoot, slice).remoteRound(ball), { force: true });
}

/** BullMQ's name of the worker that took a job (clientSafeName) back to the worker's own name. */
export function workerNameOf(processedBy: unknown): string | null {
  if (typeof processedBy !== 'string' || processedBy === '') return null;
  try {
    return decodeURIComponent(processedBy);
  } catch {
    return processedBy;
  }
}
