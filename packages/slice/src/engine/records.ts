// The records of a slice under `.leap/SLICE/` (the README lists them): the engine writes, `status` reads.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { renameSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureStateDir, isoTimestamp, writeFileAtomic, type AgentDryKind, type SlicePaths, orElse } from '@leap/core';
import type { Receipt } from '../definition/slice-schema.js';

export interface ProofRun {
  code: number;
  metric: Record<string, number> | null;
  ms: number;
  note?: string;
}

/** `run.json`: the base resolved once, on the first run. */
export type RunRecord = { slice: string; base: string; file: string; started: string };

interface SeatSummary {
  reviewer: string;
  family: string;
  verdict: string;
  value: Receipt;
  replaced: boolean;
  /** The seat's vendor ran dry (its kind): the engine passes over this reviewer for the rest of the run. */
  dry?: AgentDryKind;
}

export function summarizeSeats(seats: readonly (Omit<SeatSummary, 'dry'> & { dry?: { kind: AgentDryKind } })[]) {
  return seats.map(({ reviewer, family, verdict, value, replaced, dry }): SeatSummary => {
    const seat = { reviewer, family, verdict, value, replaced };
    return dry === undefined ? seat : { ...seat, dry: dry.kind };
  });
}

export interface JurySummary {
  value: Receipt;
  reason: string;
  candidate: string;
  seats: SeatSummary[];
  refused: { reviewer: string; family: string; reason: string }[];
  /** The slice's live proof on the spine (the aggregate's only). */
  live?: LiveEvidence;
}

/** A builder that ran dry on a round (its `fallover` event's fields); the next builder took the round. */
export type Fallover = { agent: string; family: string; cause: AgentDryKind; message: string };

export interface RoundRecord {
  slice: string;
  ball: string;
  round: number;
  /** null: the round's proof failed (or lost to the champion), the next round follows. */
  receipt: Receipt | null;
  reason: string;
  candidate: string | null;
  proof: { code: number; metric: Record<string, number> | null } | null;
  changed: string[];
  ts: string;
  /** The commit the round built on, and the one holding its work (null when undone). */
  start: string;
  commit: string | null;
  builder: { agent: string; family: string; leaf: string; status: string | null };
  /** The builders whose vendor ran dry on this round before `builder` built it, in order (absent: none). */
  fallovers?: Fallover[];
  champion?: ProofRun | null;
  jury?: JurySummary | null;
  /** The proof run again after the jury, and the candidate hashed after it. */
  reproof?: { code: number; candidate: string | null; ms?: number } | null;
  worker?: string;
  /** The builder's one hypothesis and its move, from the JSON block ending its answer (null: none given). */
  answer?: BuilderAnswer | null;
  live?: LiveEvidence;
}

export interface LiveEvidence {
  code: number;
  ms: number;
  sha256: string;
  /** Every byte it printed; `output` holds the first 16 KiB. */
  bytes: number;
  truncated: boolean;
  output: string;
  note?: string;
}

export type BuilderAnswer = { hypothesis: string; move: string };

/** `BALL/result.json`: the ball's final receipt. */
export interface ResultRecord {
  receipt: Receipt;
  reason: string;
  candidate: string | null;
  rounds: number;
  merged: string | null;
  ts: string;
  commit: string | null;
  /** Set when the ball never ran: a dependency refused or held. */
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
