// Never the worker's lines as they are: only its leaves' kinds, each checked, agreeing with the result, written anew.
import { openEventLog, type LeapEvent } from '@leap/core';
import type { RoundJobResult } from './protocol.js';

const KINDS = new Set(['launch', 'exit', 'usage', 'review']);

/** The events to append for `result`, and how many of the worker's lines were dropped. */
export async function ownEvents(
  result: RoundJobResult,
  slice: string,
  ball: string,
  round: number,
): Promise<{ events: LeapEvent[]; dropped: number }> {
  const { eventSchema } = await import('@leap/core/schemas');
  const { proofLeaves } = await import('@leap/slice');
  const leaves = new Map(result.leaves.map((l) => [l.leaf, l.usage]));
  // The round's proofs are supervised leaves too: their launch and exit, never a cost.
  const proofs = new Set(Object.values(proofLeaves(ball, round)));
  const events: LeapEvent[] = [];
  let dropped = 0;
  // One usage line per leaf: a second would count its cost twice.
  const costed = new Set<string>();
  for (const line of result.events) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      dropped++;
      continue;
    }
    const parsed = eventSchema.safeParse(value);
    if (!parsed.success || !KINDS.has(parsed.data.event)) {
      dropped++;
      continue;
    }
    const event = parsed.data as LeapEvent & { leaf?: string; slice?: string; ball?: string };
    const proof = event.event !== 'usage' && event.leaf !== undefined && proofs.has(event.leaf);
    if (event.event !== 'review' && !proof && (event.leaf === undefined || !leaves.has(event.leaf))) {
      dropped++;
      continue;
    }
    if (event.event === 'usage') {
      // Logged as the result states it (what --max-cost counted; null where its CLI did not say).
      const said = leaves.get(event.leaf as string) ?? null;
      const same =
        (said?.cost_usd ?? null) === event.cost_usd &&
        (said?.input_tokens ?? null) === event.input_tokens &&
        (said?.output_tokens ?? null) === event.output_tokens;
      if (costed.has(event.leaf as string) || !same) {
        dropped++;
        continue;
      }
      costed.add(event.leaf as string);
    }
    if (event.event === 'review' && !reviewAgrees(event, result, slice, ball)) {
      dropped++;
      continue;
    }
    events.push(event.event === 'review' ? { ...event, slice, ball } : event);
  }
  return { events, dropped };
}

// Its candidate, a seat's value or a refusal, or the jury's own verdict (reviewer null); of this slice and ball.
function reviewAgrees(
  event: LeapEvent & { event: 'review' },
  result: RoundJobResult,
  slice: string,
  ball: string,
): boolean {
  const jury = result.jury;
  if (jury === null || event.candidate !== jury.candidate) return false;
  if ((event.slice !== undefined && event.slice !== slice) || (event.ball !== undefined && event.ball !== ball))
    return false;
  if (event.reviewer === null) return event.value === jury.value;
  const seat = jury.seats.find((s) => s.reviewer === event.reviewer);
  if (seat !== undefined) return seat.value === event.value;
  return jury.refused.some((r) => r.reviewer === event.reviewer);
}

export function appendEvents(file: string, events: LeapEvent[]): void {
  if (events.length === 0) return;
  const log = openEventLog(file);
  try {
    for (const event of events) log.append(event);
  } finally {
    log.close();
  }
}
