// Seating the jury: reviewers of model families other than the builder's, one seat per family.
import type { AgentPlugin } from '@leap/core';

export type RefusedSeat = { reviewer: string; family: string; reason: string };

export type Seating = { seated: AgentPlugin[]; refused: RefusedSeat[] };

/** One seat a family: a second is not independent, and leaf names collide; `taken`: seated in an earlier round. */
export function seatReviewers(
  builderFamily: string,
  reviewers: readonly AgentPlugin[],
  taken: readonly string[] = [],
  otherBuilders: readonly string[] = [],
): Seating {
  const builder = builderFamily.toLowerCase();
  const others = new Set(otherBuilders.map((f) => f.toLowerCase()));
  const families = new Map(taken.map((f) => [f.toLowerCase(), '(an earlier seat)']));
  const seating: Seating = { seated: [], refused: [] };
  for (const agent of reviewers) {
    const family = agent.family.toLowerCase();
    const refuse = (reason: string) => seating.refused.push({ reviewer: agent.name, family: agent.family, reason });
    if (family === builder) refuse(`same family as the builder (${builderFamily})`);
    else if (others.has(family)) refuse(`same family as a builder whose work the candidate holds (${agent.family})`);
    else if (families.has(family)) refuse(`family ${agent.family} is already seated by ${families.get(family)}`);
    else {
      families.set(family, agent.name);
      seating.seated.push(agent);
    }
  }
  return seating;
}
