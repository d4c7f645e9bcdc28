// The runner seam as the engine uses it: core's BallRoundRequest and BallRoundOutcome, with the ball's data.
import type { AgentDry, AgentUsage, BallRoundOutcome, BallRoundRequest, RunnerPlugin } from '@leap/core';
import type { Ball, Receipt, Slice } from '../definition/slice-schema.js';
import type { BuilderAnswer, JurySummary, LiveEvidence, ProofRun } from './records.js';

/** Everything a runner needs to build one round, as data (a distributed runner sends it over a queue). */
export interface RoundRequest extends BallRoundRequest {
  definition: Slice;
  spec: Ball;
  branch: string;
  /** The commit the ball started from (base plus its dependencies' work): a `-1` undoes the ball back to it. */
  start: string;
  prompt: string;
  reviewers: string[];
  alternates: string[];
  agentsFile: string | null;
  /** The proof at the ball's start; null: measure it in the checkout before the builder runs. */
  champion: ProofRun | null;
  /** Run the file-map check in the fresh checkout first (round 1 of the ball's first episode). */
  checkMap: boolean;
  passed: string[];
  timeoutMs: number;
  /** Names and emails of the builder's side (the repository's git identity, the base's author), kept from jurors. */
  authors: string[];
  /** What is left of --max-cost as the round starts (null: no limit); a builder leaf spending more holds the ball. */
  costLeftUsd: number | null;
  /** Families of earlier builders whose kept work the round's commit holds: refused from its jury too. */
  builtBy?: string[];
  /** Jurors whose vendor ran dry earlier in the run: passed over, so a spent quota is not tried every round. */
  skipJurors?: string[];
}

export interface RoundResult extends BallRoundOutcome {
  receipt: Receipt | null;
  proof: ProofRun | null;
  changed: string[];
  champion: ProofRun | null;
  jury: JurySummary | null;
  reproof: { code: number; candidate: string | null; ms?: number } | null;
  builder: { agent: string; family: string; leaf: string; status: string | null };
  /** The builder's `{"hypothesis", "move"}` (null: none, or not as asked). */
  answer?: BuilderAnswer | null;
  /** The live proof's run and its evidence (absent: the ball has no live proof, or the round did not reach it). */
  live?: LiveEvidence;
  leaves: { leaf: string; usage: AgentUsage | null }[];
  worker?: string;
  /** The builder's vendor ran dry: nothing built, the checkout reset; the next builder redoes the round, uncounted. */
  dry?: AgentDry;
}

export type SliceRunner = RunnerPlugin<RoundRequest, RoundResult>;
