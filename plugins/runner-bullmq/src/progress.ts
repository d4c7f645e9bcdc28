// A round's progress on its worker (CONTRACT sections 10 and 11), through BullMQ's own job progress
// (job.updateProgress, heard by the engine as a `progress` queue event) rather than a record of ours. The
// phases are the worker's real steps: taken, fetching (clone, fetch, checkout), building (the builder leaf),
// proving (the proof, after the builder and again after the jury), reviewing (a jury leaf runs), pushing. The
// phases inside the round (buildRoundIn) are read from the launch and exit events its leaves append to the
// worker's own event log. Progress is signed with the queue secret over the job id: anyone with Redis access
// can write a job's progress, and the engine shows only a phase it can check.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { ROUND_PHASES, type RoundPhase } from '@leap/core';
import { seal, unseal } from './sign.js';

/** The steps of a round on a worker, in order (proving comes twice: after the builder, and after the jury): core's one list, which the views check too. */
export const PHASES = ROUND_PHASES;
export type Phase = RoundPhase;

/** A job's progress as BullMQ keeps it: the phase and when it began, signed for the job. */
export const sealProgress = (secret: Buffer, job: string, phase: Phase, at: number) => seal(secret, 'progress', job, { phase, at });

/** The phase a job's progress says, when it is signed for that job with the queue secret and names a phase; else null (ignored). */
export function phaseOf(secret: Buffer, job: string, progress: unknown): { phase: Phase; at: number } | null {
  try {
    const body = unseal(secret, 'progress', job, progress) as { phase?: unknown; at?: unknown } | null;
    if (body === null || typeof body !== 'object' || !PHASES.includes(body.phase as Phase) || typeof body.at !== 'number' || !Number.isFinite(body.at)) return null;
    return { phase: body.phase as Phase, at: body.at };
  } catch {
    return null;
  }
}

/**
 * Follow the round's leaves in `events` (the worker's own log, from byte `from`): a builder leaf (`build-...`)
 * launched is building, its exit proving, a reviewer leaf (`review-...`) launched reviewing, the last of them
 * ended proving again (the re-proof). `phase`: the one said already; `onPhase` is called at each change; `stop()` ends the watch.
 */
export function watchRoundPhases(events: string, from: number, phase: Phase, onPhase: (phase: Phase) => void, everyMs = 200): { stop(): void } {
  let offset = from;
  let rest = '';
  const reviewing = new Set<string>();
  const set = (next: Phase) => {
    if (next === phase) return;
    phase = next;
    onPhase(next);
  };
  const read = () => {
    let size: number;
    try {
      size = statSync(events).size;
    } catch {
      return;
    }
    if (size <= offset) return;
    const buffer = Buffer.alloc(Math.min(size - offset, 1 << 20));
    const fd = openSync(events, 'r');
    try {
      offset += readSync(fd, buffer, 0, buffer.length, offset);
    } finally {
      closeSync(fd);
    }
    const lines = (rest + buffer.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      let event: { event?: unknown; leaf?: unknown };
      try {
        event = JSON.parse(line) as typeof event;
      } catch {
        continue;
      }
      const leaf = typeof event.leaf === 'string' ? event.leaf : '';
      if (event.event === 'launch' && leaf.startsWith('build-')) set('building');
      else if (event.event === 'exit' && leaf.startsWith('build-')) set('proving');
      else if (event.event === 'launch' && leaf.startsWith('review-')) {
        reviewing.add(leaf);
        set('reviewing');
      } else if (event.event === 'exit' && leaf.startsWith('review-')) {
        reviewing.delete(leaf);
        if (reviewing.size === 0) set('proving');
      }
    }
  };
  const timer = setInterval(read, everyMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      read();
    },
  };
}
