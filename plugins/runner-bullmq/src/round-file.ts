// Where a distributed round stands, for `leap status` and `leap report` (CONTRACT sections 10 and 11): the engine
// writes `.leap/SLICE/BALL/remote-round.json` from what it read of the queue itself (the job's state, the worker
// BullMQ says took it, the phase its signed job progress says): queued, building on a worker (taken, fetching,
// building, proving, reviewing, pushing), returned. The worker's name is worker-written text: the
// view prints it escaped. Written whole (a temp file renamed), so a reader never sees half of it.
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { slicePaths, writeFileAtomic } from '@leap/core';
import type { Phase } from './progress.js';

/** A round's place on the queue, as the engine last saw it. */
export interface RemoteRound {
  v: 1;
  round: number;
  job: string;
  state: 'queued' | 'building' | 'returned';
  /** The worker building it (BullMQ's record of who took the job), or null while it is queued. */
  worker: string | null;
  /** Where the round is on its worker, from the job's progress the worker signed (progress.ts), or null (queued, or none said). */
  phase: Phase | null;
  queuedAt: string;
  takenAt: string | null;
  returnedAt: string | null;
  /** The engine's pid: a file whose engine is gone is stale (a killed engine). */
  enginePid: number;
}

/** Write the round's state; never throws (the view's picture is not worth a round). */
export function writeRemoteRound(repoRoot: string, slice: string, ball: string, round: RemoteRound): void {
  try {
    const file = slicePaths(repoRoot, slice).remoteRound(ball);
    mkdirSync(dirname(file), { recursive: true });
    // A picture for the view, rewritten at every look at the queue: whole, not durable.
    writeFileAtomic(file, `${JSON.stringify(round, null, 2)}\n`, { durable: false });
  } catch {
    // a state folder we cannot write: the round goes on without its picture
  }
}

/** The round's file removed (a round that ended without a result: its record says why). */
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
