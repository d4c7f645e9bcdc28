// record.json: only when every ball and the aggregate jury passed, each ball's receipts on one candidate hash.
import { createHash } from 'node:crypto';
import { isoTimestamp } from '@leap/core';
import type { Slice } from '../definition/slice-schema.js';
import type { JurySummary, ResultRecord, RoundRecord, RunRecord } from './records.js';

export interface ProvenanceInput {
  slice: Slice;
  run: RunRecord;
  spine: { branch: string; commit: string };
  balls: { id: string; round: RoundRecord; result: ResultRecord }[];
  aggregate: JurySummary;
}

export function buildProvenance(input: ProvenanceInput): { record: unknown } | { incomplete: string } {
  const balls = [];
  for (const { id, round, result } of input.balls) {
    const ball = input.slice.balls.find((b) => b.id === id);
    if (ball === undefined) return { incomplete: `ball ${id} is not in the slice` };
    const receipts = [
      { step: 'round', value: round.receipt, candidate: round.candidate },
      { step: 'jury', value: round.jury?.value ?? null, candidate: round.jury?.candidate ?? null },
      { step: 'reproof', value: round.reproof?.code === 0 ? 1 : null, candidate: round.reproof?.candidate ?? null },
      { step: 'result', value: result.receipt, candidate: result.candidate },
    ];
    const hashes = new Set(receipts.map((r) => r.candidate));
    if (hashes.size !== 1 || result.candidate === null)
      return { incomplete: `ball ${id}'s receipts do not carry one candidate hash (${[...hashes].join(', ')})` };
    if (receipts.some((r) => r.value !== 1)) return { incomplete: `ball ${id} has a receipt that is not 1` };
    if (result.merged === null) return { incomplete: `ball ${id} is not merged` };
    const specHash = createHash('sha256').update(ball.spec).digest('hex');
    const what = { task: id, goal: ball.goal, spec_sha256: specHash, rollback: ball.rollback, builder: round.builder };
    const scope = ball.scope.map((s) => s.path);
    const where = { scope, start: round.start, commit: result.commit, merged: result.merged };
    const judged = { rounds: result.rounds, reviewers: round.jury?.seats ?? [], verdict: round.jury?.reason ?? null };
    const tests = [
      { argv: ball.proof.argv, code: round.proof?.code ?? null, metric: round.proof?.metric ?? null },
      { argv: ball.proof.argv, code: round.reproof?.code ?? null, candidate_after: round.reproof?.candidate ?? null },
    ];
    const proved = { champion: round.champion ?? null, evidence: result.reason, candidate: result.candidate, receipts };
    balls.push({ ...what, ...where, ...judged, tests, ...proved });
  }
  if (input.aggregate.value !== 1) return { incomplete: `the aggregate jury returned ${input.aggregate.value}` };
  const head = { slice: input.slice.id, file: input.run.file, base: input.run.base, spine: input.spine.branch };
  const tail = { spine_commit: input.spine.commit, declared_spine: input.slice.spine, balls };
  return { record: { ...head, ...tail, aggregate: input.aggregate, receipt: 1, ts: isoTimestamp() } };
}
