// Merges in plan order as far as every earlier ball has ended; the engine applies what they return.
import { isoTimestamp } from '@leap/core';
import type { Slice } from '../definition/slice-schema.js';
import type { RunAgents } from './agents.js';
import type { EngineLog } from './events.js';
import { aggregateJury, mergeBall, spineBranch, type AggregateInput } from './integrate.js';
import { keptBuilderFamilies } from './kept-builders.js';
import { readRecord, writeRecord, type JurySummary, type ResultRecord, type SlicePaths } from './records.js';
import { progressOf, type BallsProgress } from './scheduler.js';

export interface MergeInput {
  repo: string;
  slice: Slice;
  order: readonly string[];
  paths: SlicePaths;
  log: EngineLog;
  say: (line: string) => void;
}

export type MergeState = { cursor: number; spineTip: string };

/** Merge what can be merged now; returns the new state and the results it changed (written already). */
export async function mergeReady(input: MergeInput, balls: BallsProgress, from: MergeState) {
  let { cursor, spineTip } = from;
  const results = new Map<string, ResultRecord>();
  while (cursor < input.order.length) {
    const id = input.order[cursor] as string;
    const state = progressOf(balls, id);
    if (state.result === null) break;
    cursor++;
    const result = state.result;
    if (result.receipt !== 1 || result.commit === null) continue;
    const merged = await mergeBall(input.repo, input.slice.id, state.ball, result.commit, spineTip, !state.reused);
    const at = { slice: input.slice.id, ball: id };
    if (!merged.ok) {
      const reason = `refused at the spine: ${merged.reason}`;
      const refused: ResultRecord = { ...result, receipt: -1, reason, merged: null };
      writeRecord(input.paths.result(id), refused);
      results.set(id, refused);
      input.log.emit('receipt', { ...at, value: -1, candidate: result.candidate, evidence: reason });
      input.say(`ball ${id}: -1 refused at the spine: ${merged.reason}`);
      continue;
    }
    spineTip = merged.commit;
    if (result.merged !== merged.commit && !(merged.already && result.merged !== null)) {
      const landed: ResultRecord = { ...result, merged: merged.commit };
      writeRecord(input.paths.result(id), landed);
      results.set(id, landed);
    }
    if (!merged.already) {
      input.log.emit('merge', { ...at, commit: merged.commit, candidate: result.candidate as string });
      input.say(`ball ${id}: merged onto ${spineBranch(input.slice.id)} at ${merged.commit.slice(0, 12)}`);
    }
  }
  return { cursor, spineTip, results };
}

/** A pass recorded for the same spine commit stands; `leaves`: the jurors', for the cost meter. */
async function aggregateOnce(input: SpineJury, spineCommit: string): Promise<Aggregated> {
  const { say, ...jury } = input;
  const earlier = readRecord<JurySummary & { spine: string }>(input.paths.aggregate);
  if (earlier !== null && earlier.value === 1 && earlier.spine === spineCommit) {
    say(`aggregate jury: passed on an earlier run for spine ${spineCommit.slice(0, 12)}`);
    return { summary: earlier, leaves: [] };
  }
  say(`aggregate jury: convened on ${spineBranch(input.slice.id)} at ${spineCommit.slice(0, 12)}`);
  const { leaves, ...summary } = await aggregateJury(jury);
  writeRecord(input.paths.aggregate, { ...summary, spine: spineCommit, ts: isoTimestamp() });
  say(`aggregate jury: ${summary.value}: ${summary.reason}`);
  return { summary, leaves };
}

type SpineJury = AggregateInput & { say: (line: string) => void };
type Aggregated = { summary: JurySummary; leaves: string[] };
type SpineJuryInput = Omit<SpineJury, 'builder' | 'reviewers' | 'alternates' | 'agentsFile'> & {
  agents: RunAgents;
  order: readonly string[];
};

/** The aggregate jury on `spineCommit`: no reviewer sits of a family whose builder built a round the spine holds. */
export async function aggregateSpine(input: SpineJuryInput, spineCommit: string) {
  const { agents, order, ...rest } = input;
  const kept = await Promise.all(order.map((id) => keptBuilderFamilies(input.repo, input.paths, id, spineCommit)));
  const built = new Set(kept.flat());
  const builder = agents.builders.find((b) => built.has(b.family)) ?? agents.builder;
  const others = [...built].filter((f) => f !== builder.family);
  const families = [builder.family, ...others].join(', ');
  if (others.length > 0)
    input.say(`aggregate jury: the spine holds work of builders of ${families}: no reviewer of those families sits`);
  const { reviewers, alternates, file: agentsFile } = agents;
  const jury = { builder: builder.name, builderFamily: builder.family, otherBuilderFamilies: others };
  return aggregateOnce({ ...rest, ...jury, reviewers, alternates, agentsFile }, spineCommit);
}
