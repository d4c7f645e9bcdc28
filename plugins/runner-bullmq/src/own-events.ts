// Never the worker's lines as they are: only its leaves' kinds, each checked, agreeing with the result, written anew.
import { openEventLog, parseEventLine, type LeapEvent } from '@leap/core';
import type { RoundJobResult } from './protocol.js';

const KINDS = new Set(['launch', 'exit', 'usage', 'review']);

/** The events to append for `result`, and how many of the worker's lines were dropped. */
export async function ownEvents(result: RoundJobResult, slice: string, ball: string, round: number) {
  const { proofLeaves } = await import('@leap/slice');
  const leaves = new Map(result.leaves.map((l) => [l.leaf, l.usage]));
  // The round's proofs are supervised leaves too: their launch and exit, never a cost.
  const proofs = new Set(Object.values(proofLeaves(ball, round)));
  // One usage line per leaf: a second would count its cost twice.
  const costed = new Set<string>();
  const keep = (line: string): LeapEvent | null => {
    const parsed = parseEventLine(line);
    if (!('event' in parsed) || !KINDS.has(parsed.event.event)) return null;
    const event = parsed.event as LeapEvent & { leaf?: string; slice?: string; ball?: string };
    const proof = event.event !== 'usage' && event.leaf !== undefined && proofs.has(event.leaf);
    if (event.event !== 'review' && !proof && (event.leaf === undefined || !leaves.has(event.leaf))) return null;
    if (event.event === 'review') return reviewAgrees(event, result, slice, ball) ? { ...event, slice, ball } : null;
    if (event.event !== 'usage') return event;
    // Logged as the result states it (what --max-cost counted; null where its CLI did not say).
    const said = leaves.get(event.leaf as string) ?? null;
    const keys = ['cost_usd', 'input_tokens', 'output_tokens'] as const;
    if (costed.has(event.leaf as string) || !keys.every((k) => (said?.[k] ?? null) === event[k])) return null;
    costed.add(event.leaf as string);
    return event;
  };
  const events = result.events.map(keep).filter((event) => event !== null);
  return { events, dropped: result.events.length - events.length };
}

// Its candidate, a seat's value or a refusal, or the jury's own verdict (reviewer null); of this slice and ball.
function reviewAgrees(event: LeapEvent & { event: 'review' }, result: RoundJobResult, slice: string, ball: string) {
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
