// The records of a slice under `.leap/SLICE/` (the README lists them): the engine writes, `status` reads.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { appendEvent, createEvent, ensureStateDir, isoTimestamp, orElse, readEventContext } from '@leap/core';
import { statePaths, writeFileAtomic, type AgentDryKind, type EventKind, type EventOf } from '@leap/core';
import type { AgentDry, AgentUsage, BallRoundOutcome, BallRoundRequest, RunnerPlugin, SlicePaths } from '@leap/core';
import type { Ball, Receipt, Slice } from '../definition/slice-schema.js';

export type ProofRun = { code: number; metric: Record<string, number> | null; ms: number; note?: string };

/** `run.json`: the base resolved once, on the first run. */
export type RunRecord = { slice: string; base: string; file: string; started: string };

type Seat = { reviewer: string; family: string; verdict: string; value: Receipt; replaced: boolean };

/** `dry`: the seat's vendor ran dry, and the engine passes over this reviewer for the rest of the run. */
export function summarizeSeats(seats: readonly (Seat & { dry?: { kind: AgentDryKind } })[]) {
  return seats.map(({ reviewer, family, verdict, value, replaced, dry }): Seat & { dry?: AgentDryKind } => {
    const seat = { reviewer, family, verdict, value, replaced };
    return dry === undefined ? seat : { ...seat, dry: dry.kind };
  });
}

export interface JurySummary {
  value: Receipt;
  reason: string;
  candidate: string;
  seats: ReturnType<typeof summarizeSeats>;
  refused: { reviewer: string; family: string; reason: string }[];
  /** The slice's live proof on the spine (the aggregate's only). */
  live?: LiveEvidence;
}

/** A builder that ran dry on a round (its `fallover` event's fields); the next builder took the round. */
export type Fallover = { agent: string; family: string; cause: AgentDryKind; message: string };

type RoundFields = 'receipt' | 'reason' | 'candidate' | 'changed' | 'commit' | 'builder' | 'answer' | 'live' | 'worker';
/** `start`: the commit the round built on; `fallovers`: builders whose vendor ran dry on it first, in order. */
export type RoundRecord = Pick<RoundResult, RoundFields> & {
  slice: string;
  ball: string;
  round: number;
  proof: { code: number; metric: Record<string, number> | null } | null;
  ts: string;
  start: string;
  fallovers?: Fallover[];
  champion?: ProofRun | null;
  jury?: JurySummary | null;
  reproof?: RoundResult['reproof'];
};

/** `output` holds the first 16 KiB of the `bytes` it printed. */
export type LiveEvidence = {
  code: number;
  ms: number;
  sha256: string;
  bytes: number;
  truncated: boolean;
  output: string;
  note?: string;
};

export type BuilderAnswer = { hypothesis: string; move: string };

/** `BALL/result.json`: the ball's final receipt; `blockedBy`: it never ran, a dependency refused or held. */
export interface ResultRecord {
  receipt: Receipt;
  reason: string;
  candidate: string | null;
  rounds: number;
  merged: string | null;
  ts: string;
  commit: string | null;
  blockedBy?: string[];
}

export { slicePaths, type SlicePaths } from '@leap/core';

export const readRecord = <T>(file: string) => orElse(() => JSON.parse(readFileSync(file, 'utf8')) as T, null);

/** Atomic; not flushed: a power loss is rebuilt as after a kill. */
export function writeRecord(file: string, value: unknown): void {
  writeText(file, `${JSON.stringify(value, null, 2)}\n`);
}

export function writeText(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, text, { durable: false });
}

export function readRounds(paths: SlicePaths, ball: string): RoundRecord[] {
  const rounds: RoundRecord[] = [];
  for (let n = 1; n <= 4; n++) {
    const r = readRecord<RoundRecord>(paths.round(ball, n));
    if (r === null) break;
    rounds.push(r);
  }
  return rounds;
}

/** The last episode moves to `episode-K/`; a champion copy stays: the next episode is judged against the start. */
export function archiveEpisode(paths: SlicePaths, ball: string): void {
  const dir = paths.ball(ball);
  if (!existsSync(dir)) return;
  const moving = readdirSync(dir).filter((f) => /^(?:round-[1-4]|result|champion)\.json$/.test(f));
  if (moving.length === 0) return;
  let k = 1;
  while (existsSync(join(dir, `episode-${k}`))) k++;
  const to = join(dir, `episode-${k}`);
  mkdirSync(to, { recursive: true });
  for (const f of moving) {
    if (f === 'champion.json') copyFileSync(join(dir, f), join(to, f));
    else renameSync(join(dir, f), join(to, f));
  }
}

export function readOrWriteRun(paths: SlicePaths, slice: string, base: string, file: string): RunRecord {
  const existing = readRecord<RunRecord>(paths.run);
  if (existing !== null && typeof existing.base === 'string') return existing;
  const run: RunRecord = { slice, base, file, started: isoTimestamp() };
  writeRecord(paths.run, run);
  return run;
}

const LEAP_GITIGNORE = `# Written by leap slice run: records stay out of git status;
# a passed slice's provenance (SLICE/record.json) shows, to be committed. This file ignores itself.
*
!*/
!*/record.json
`;

/** `.leap/.gitignore` and the state folder's, so a run leaves git status clean. */
export function writeIgnoreFiles(paths: SlicePaths, stateDir: string): void {
  mkdirSync(paths.leap, { recursive: true });
  const leapIgnore = join(paths.leap, '.gitignore');
  if (!existsSync(leapIgnore)) writeFileSync(leapIgnore, LEAP_GITIGNORE);
  ensureStateDir(stateDir);
}

export function pruneWorktreeFolders(paths: SlicePaths): void {
  try {
    for (const folder of [paths.worktrees, dirname(paths.worktrees)]) rmdirSync(folder);
  } catch {}
}

/** Move a record a reopened ball no longer supports to spine/record-K.json: history is kept, never deleted. */
export function retireRecord(paths: SlicePaths): void {
  if (!existsSync(paths.record)) return;
  let k = 1;
  while (existsSync(join(paths.dir, 'spine', `record-${k}.json`))) k++;
  mkdirSync(join(paths.dir, 'spine'), { recursive: true });
  renameSync(paths.record, join(paths.dir, 'spine', `record-${k}.json`));
}

type Fields<K extends EventKind> = Omit<EventOf<K>, 'ts' | 'event' | 'issue' | 'step' | 'skill_commit'>;

export interface EngineLog {
  emit<K extends 'ball' | 'round' | 'receipt' | 'merge' | 'fallover'>(kind: K, fields: Fields<K>): void;
}

export function engineLog(stateDir: string, env: NodeJS.ProcessEnv): EngineLog {
  const context = readEventContext(stateDir, env);
  const file = statePaths(stateDir).events;
  return { emit: (kind, fields) => appendEvent(file, createEvent(kind, fields as never, context)) };
}

// The runner seam as the engine uses it: core's BallRoundRequest and BallRoundOutcome, with the ball's data.
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
