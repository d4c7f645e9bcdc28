// Each file may be absent; one that cannot be read is a problem naming it, never a crash.
import { readdirSync, readFileSync, type Stats, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  DEFAULT_TIMEOUT_S,
  LEAP_DIR,
  parseLedger,
  pidExists,
  RECORD_ID,
  readFileIfExists,
  readStopRequest,
  ROUND_PHASES,
  ROUND_RECORD,
  readTimeLimit,
  slicePaths,
  statePaths,
  type StepState,
  type TimeLimit,
  orElse,
} from '@leap/core';
import { num } from './_fold-leaves.js';
import { receiptOf } from './_fold-slices.js';
import type { RoundAnswer, RoundLive } from './fold-run.js';

export type FileProblem = { file: string; message: string };

export interface LedgerState {
  issue: number;
  file: string;
  title: string | null;
  steps: Array<{ title: string; state: StepState; criterion: number | null }>;
}

export interface SliceRecord {
  id: string;
  /** Whether `record.json` exists: written only when the slice passed. */
  record: boolean;
  balls: Array<{
    id: string;
    deps: string[];
    wave: number | null;
    rounds: Array<{ round: number; receipt: number | null; answer?: RoundAnswer; live?: RoundLive }>;
    receipt: number | null;
    reason: string | null;
    remote?: RemoteRoundState;
  }>;
}

export type RemoteRoundState = NonNullable<ReturnType<typeof remoteOf>>;

const ISSUE_FILE = /^issue-([1-9][0-9]{0,15})\.md$/;

const listDir = (dir: string): string[] => orElse(() => readdirSync(dir).sort(), []);
const statOf = (path: string): Stats | undefined => orElse(() => statSync(path), undefined);
const readText = (file: string): string | null => orElse(() => readFileSync(file, 'utf8'), null);

const headingOf = (text: string | null): string | null =>
  text === null ? null : (/^# (.+)$/m.exec(text)?.[1]?.trim() ?? null);

export function readLedgers(stateDir: string, problems: FileProblem[]): LedgerState[] {
  const out: LedgerState[] = [];
  for (const name of listDir(stateDir)) {
    const m = ISSUE_FILE.exec(name);
    if (m === null) continue;
    const file = join(stateDir, name);
    try {
      const text = readFileSync(file, 'utf8');
      const ledger = parseLedger(text, file);
      // The local tracker's issue title (`.tdd/issues/N.md`), else the ledger's heading (the plan's first line).
      const issue = Number(m[1]);
      const title = headingOf(readFileIfExists(statePaths(stateDir).issue(issue))) ?? headingOf(text);
      const steps = ledger.steps.map((s) => ({ title: s.title, state: s.state, criterion: s.criterion }));
      out.push({ issue, file, title, steps });
    } catch (error) {
      problems.push({ file, message: (error as Error).message });
    }
  }
  return out.sort((a, b) => a.issue - b.issue);
}

export function readPendingStop(stateDir: string): { mode: string | null; unreadable: string | null } {
  const stop = readStopRequest(statePaths(stateDir).stop);
  return {
    mode: stop.kind === 'requested' ? stop.mode : null,
    unreadable: stop.kind === 'unreadable' ? stop.reason : null,
  };
}

/** A leaf's time limit as the supervisor reads it, else the default (the supervisor refuses a limit it cannot read). */
export const readTimeLimitShown = (stateDir: string, issue: number | null, env: NodeJS.ProcessEnv): TimeLimit =>
  orElse(() => readTimeLimit(stateDir, issue, env), { ms: DEFAULT_TIMEOUT_S * 1000, source: 'default' });

export function supervisorEnv(pid: number): NodeJS.ProcessEnv | null {
  const text = readText(`/proc/${pid}/environ`);
  if (text === null) return null;
  const env: NodeJS.ProcessEnv = {};
  for (const pair of text.split('\0')) {
    const eq = pair.indexOf('=');
    if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

function readJson(file: string, problems: FileProblem[]): Record<string, unknown> | null {
  const text = readText(file);
  if (text === null) return null;
  try {
    const json: unknown = JSON.parse(text);
    if (json !== null && typeof json === 'object' && !Array.isArray(json)) return json as Record<string, unknown>;
    problems.push({ file, message: 'expected a JSON object; ignored' });
  } catch (error) {
    problems.push({ file, message: `not JSON (${(error as Error).message}); ignored` });
  }
  return null;
}

export function readSliceRecords(root: string, problems: FileProblem[]): SliceRecord[] {
  const out: SliceRecord[] = [];
  for (const id of listDir(join(root, LEAP_DIR))) {
    const paths = slicePaths(root, id);
    // A slice id starts with a letter or digit: `.worktrees` and the like are the engine's own.
    if (!RECORD_ID.test(id) || statOf(paths.dir)?.isDirectory() !== true) continue;
    const run = readJson(paths.run, problems);
    const declared = new Map<string, { deps: string[]; wave: number | null }>();
    // run.json names the slice file, whose balls give the dependencies.
    const definition = typeof run?.file === 'string' ? readJson(resolve(root, run.file), []) : null;
    const balls = Array.isArray(run?.balls) ? run.balls : Array.isArray(definition?.balls) ? definition.balls : [];
    for (const b of balls as Array<Record<string, unknown>>) {
      if (b === null || typeof b !== 'object' || typeof b.id !== 'string') continue;
      declared.set(b.id, {
        deps: Array.isArray(b.deps) ? b.deps.filter((d): d is string => typeof d === 'string') : [],
        wave: typeof b.wave === 'number' ? b.wave : null,
      });
    }
    const record: SliceRecord = { id, record: statOf(paths.record)?.isFile() === true, balls: [] };
    const names = new Set([
      ...declared.keys(),
      ...listDir(paths.dir).filter((n) => RECORD_ID.test(n) && statOf(paths.ball(n))?.isDirectory() === true),
    ]);
    for (const ball of names) {
      const ballDir = paths.ball(ball);
      const rounds: SliceRecord['balls'][number]['rounds'] = [];
      for (const name of listDir(ballDir)) {
        const m = ROUND_RECORD.exec(name);
        if (m === null) continue;
        const json = readJson(join(ballDir, name), problems);
        const receipt = receiptOf(json?.receipt ?? json?.value);
        rounds.push({ round: Number(m[1]), receipt, ...answerOf(json?.answer), ...liveOf(json?.live) });
      }
      rounds.sort((a, b) => a.round - b.round);
      const result = readJson(paths.result(ball), problems);
      const info = declared.get(ball);
      const reason = typeof result?.reason === 'string' ? result.reason : null;
      const remote = remoteOf(readJson(paths.remoteRound(ball), problems));
      record.balls.push({
        id: ball,
        deps: info?.deps ?? [],
        wave: info?.wave ?? null,
        rounds,
        receipt: receiptOf(result?.receipt ?? result?.value),
        reason,
        ...(remote === null ? {} : { remote }),
      });
    }
    out.push(record);
  }
  return out;
}

// A round's answer and live proof, each when round-N.json holds it whole (to spread into the round).
function answerOf(value: unknown): { answer?: RoundAnswer } {
  if (value === null || typeof value !== 'object') return {};
  const { hypothesis, move } = value as Record<string, unknown>;
  return typeof hypothesis === 'string' && typeof move === 'string' ? { answer: { hypothesis, move } } : {};
}

function liveOf(value: unknown): { live?: RoundLive } {
  if (value === null || typeof value !== 'object') return {};
  const v = value as Record<string, unknown>;
  if (typeof v.sha256 !== 'string' || typeof v.output !== 'string') return {};
  const note = typeof v.note === 'string' ? { note: v.note } : {};
  const live = { code: num(v.code), ms: num(v.ms), sha256: v.sha256, bytes: num(v.bytes) };
  return { live: { ...live, truncated: v.truncated === true, output: v.output, ...note } };
}

// remote-round.json as the bullmq runner's engine writes it, or null when absent or not that shape.
// `engineAlive`: whether the engine that wrote it still runs (a killed engine's file is stale).
function remoteOf(json: Record<string, unknown> | null) {
  if (json === null) return null;
  const { round, job, state, worker, queuedAt, takenAt, returnedAt, enginePid, phase } = json;
  const time = (v: unknown): number | null =>
    typeof v === 'string' && Number.isFinite(Date.parse(v)) ? Date.parse(v) : null;
  const queued = time(queuedAt);
  if (
    typeof round !== 'number' ||
    typeof job !== 'string' ||
    (state !== 'queued' && state !== 'building' && state !== 'returned') ||
    queued === null
  )
    return null;
  return {
    round,
    job,
    state: state as 'queued' | 'building' | 'returned',
    worker: typeof worker === 'string' ? worker : null,
    queuedAt: queued,
    takenAt: time(takenAt),
    returnedAt: time(returnedAt),
    phase: (ROUND_PHASES as readonly unknown[]).includes(phase) ? (phase as string) : null,
    engineAlive: typeof enginePid === 'number' && Number.isInteger(enginePid) && enginePid > 0 && pidExists(enginePid),
  };
}
