// Keep-or-revert (blind-eval): the candidate must strictly beat the champion, the proof at the ball's start.
import type { Proof } from '../definition/slice-schema.js';
import type { ProofRun } from './records.js';
import { proofPassed } from './proof.js';

export type KeepDecision = { keep: boolean; reason: string };

/** The metric's first differing field decides; a tie loses (no uplift), as does a passing start with no metric. */
export function keepOrRevert(proof: Proof, champion: ProofRun, candidate: ProofRun): KeepDecision {
  const beats = (why: string) => ({ keep: true, reason: `beats the champion${why}` });
  const loses = (why: string) => ({ keep: false, reason: `loses to the champion: ${why}` });
  if (!proofPassed(champion, proof))
    return beats(`: the proof fails at the start (exit ${champion.code}) and passes now`);
  const fields = proof.metric ?? [];
  if (fields.length === 0) return loses('a tie (the proof already passes at the start and no metric is declared)');
  for (const { field, better } of fields) {
    const was = champion.metric?.[field] as number;
    const now = candidate.metric?.[field] as number;
    if (now === was) continue;
    const change = `${field} (${was} -> ${now}, ${better} is better)`;
    return (better === 'higher' ? now > was : now < was) ? beats(` on ${change}`) : loses(`a regression on ${change}`);
  }
  return loses(`a tie on ${fields.map((f) => f.field).join(', ')}`);
}
