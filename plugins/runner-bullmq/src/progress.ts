// Signed over the job id: anyone with Redis access can write a job's progress; the engine shows only what it checks.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { isJsonObject, orElse, parseEventLine, ROUND_PHASES as PHASES, type RoundPhase as Phase } from '@leap/core';
import { seal, unseal } from './sign.js';

export const sealProgress = (secret: Buffer, job: string, phase: Phase, at: number) =>
  seal(secret, 'progress', job, { phase, at });

/** Null (ignored) unless signed for that job with the queue secret and naming a phase. */
export function phaseOf(secret: Buffer, job: string, progress: unknown): { phase: Phase; at: number } | null {
  const body = orElse(() => unseal(secret, 'progress', job, progress), null);
  const ok = isJsonObject(body) && PHASES.includes(body.phase as Phase) && Number.isFinite(body.at);
  return ok ? { phase: body.phase as Phase, at: body.at as number } : null;
}

/** From the worker's log: build- launched is building, exited proving; review- leaves reviewing, then proving. */
export function watchRoundPhases(events: string, from: number, phase: Phase, onPhase: (phase: Phase) => void) {
  let offset = from;
  let rest = '';
  const reviewing = new Set<string>();
  const set = (next: Phase) => {
    if (next === phase) return;
    phase = next;
    onPhase(next);
  };
  const read = () => {
    const size = orElse(() => statSync(events).size, 0);
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
      const parsed = line.trim() === '' ? null : parseEventLine(line);
      const event = parsed !== null && 'event' in parsed ? parsed.event : null;
      if (event?.event !== 'launch' && event?.event !== 'exit') continue;
      const launched = event.event === 'launch';
      if (event.leaf.startsWith('build-')) set(launched ? 'building' : 'proving');
      else if (event.leaf.startsWith('review-')) {
        if (launched) reviewing.add(event.leaf);
        else reviewing.delete(event.leaf);
        if (launched || reviewing.size === 0) set(launched ? 'reviewing' : 'proving');
      }
    }
  };
  const timer = setInterval(read, 200);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      read();
    },
  };
}
