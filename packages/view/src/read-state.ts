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
} from '@leap/core';
import { num } from './_fold-leaves.js';
import { receiptOf } from './_fold-slices.js';
import type { RoundAnswer, RoundLive } from './fold-run.js';

export interface FileProblem {
  file: string;
  message: string;
}

export interface LedgerState {
  issue: number;
  file: string;
  title: string | null;
  steps: Array<{ title: string; state: StepState; criterion: number | null }>;
}

export interface SliceRecord {
  id: string;
  dir: string;
  /** Whether `record.json` exists: written only when the slice passed. */
  record: boolean;
  base: string | null;
  balls: Array<{
    id: string;
    deps: string[];
    wave: number | null;
    rounds: Array<{ round: number; receipt: number | null; answer?: RoundAnswer; live?: RoundLive }>;
    receipt: number | null;
    reason: string | null;
    /** The bullmq runner's remote-round.json, as its engine last saw the queue. */
    remote?: RemoteRoundState;
  }>;
}

export interface RemoteRoundState {
  round: number;
  job: string;
  state: 'queued' | 'building' | 'returned';
  /** The worker's name, as BullMQ recorded it (text a worker chose: printed escaped). */
  worker: string | null;
  queuedAt: number;
  takenAt: number | null;
  returnedAt: number | null;
  /** As the worker's signed progress said and the engine checked; null when none. */
  phase: string | null;
  /** Whether the engine that wrote it still runs (a killed engine's file is stale). */
  engineAlive: boolean;
}

const ISSUE_FILE = /^issue-([1-9][0-9]{0,15})\.md$/;

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

function headingOf(text: string | null): string | null {
  return text === null ? null : (/^# (.+)$/m.exec(text)?.[1]?.trim() ?? null);
}

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

/** A pending stop request: its mode, or why the stop file could not be read. */
export function readPendingStop(stateDir: string): { mode: string | null; unreadable: string | null } {
  const stop = readStopRequest(statePaths(stateDir).stop);
  return {
    mode: stop.kind === 'requested' ? stop.mode : null,
    unreadable: stop.kind === 'unreadable' ? stop.reason : null,
  };
}

/** A leaf's time limit as the supervisor reads it, else the default (the supervisor refuses a limit it cannot read). */
export function readTimeLimitShown(stateDir: string, issue: number | null, env: NodeJS.ProcessEnv): TimeLimit {
  try {
    return readTimeLimit(stateDir, issue, env);
  } catch {
    return { ms: DEFAULT_TIMEOUT_S * 1000, source: 'default' };
  }
}

/** A live process's environment (`/proc/PID/environ`), or null when this machine does not show it. */
export function supervisorEnv(pid: number): NodeJS.ProcessEnv | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return null;
  }
  const env: NodeJS.ProcessEnv = {};
  for (const pair of text.split('\0')) {
    const eq = pair.indexOf('=');
    if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

function readJson(file: string, problems: FileProblem[]): Record<string, unknown> | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  try {
    const json: unknown = JSON.parse(text);
    if (json !== null && typeof json === 'object' && !Array.isArray(json)) return json as Record<string, unknown>;
    problems.push({ file, message: 'expected a JSON object; ignored' });
  } catch (error) {
    problems.push({ file, message: `not JSON (${(error as Error).message}); ignored` });
  }
  return null;
}

/** The slices recorded under `.leap/` of the repository at `root`. */
export function readSliceRecords(root: string, problems: FileProblem[]): SliceRecord[] {
  const out: SliceRecord[] = [];
  for (const id of listDir(join(root, LEAP_DIR))) {
    const paths = slicePaths(root, id);
    const { dir } = paths;
    // A slice id starts with a letter or digit: `.worktrees` and the like are the engine's own.
    if (!RECORD_ID.test(id) || statOf(dir)?.isDirectory() !== true) continue;
    const run = readJson(paths.run, problems);
    const declared = new Map<string, { deps: string[]; wave: number | null }>();
    // run.json names the slice file; its balls give the dependencies (a slice file moved since is skipped).
    const definition = typeof run?.file === 'string' ? readJson(resolve(root, run.file), []) : null;
    const balls = Array.isArray(run?.balls) ? run.balls : Array.isArray(definition?.balls) ? definition.balls : [];
    for (const b of balls as Array<Record<string, unknown>>) {
      if (b === null || typeof b !== 'object' || typeof b.id !== 'string') continue;
      declared.set(b.id, {
        deps: Array.isArray(b.deps) ? b.deps.filter((d): d is string => typeof d === 'string') : [],
        wave: typeof b.wave === 'number' ? b.wave : null,
      });
    }
    const record: SliceRecord = {
      id,
      dir,
      record: statOf(paths.record)?.isFile() === true,
      base: typeof run?.base === 'string' ? run.base : null,
      balls: [],
    };
    const names = new Set([
      ...declared.keys(),
      ...listDir(dir).filter((n) => RECORD_ID.test(n) && statOf(paths.ball(n))?.isDirectory() === true),
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

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

// remote-round.json as the bullmq runner's engine writes it, or null when it is absent or not that shape.
function remoteOf(json: Record<string, unknown> | null): RemoteRoundState | null {
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
    state,
    worker: typeof worker === 'string' ? worker : null,
    queuedAt: queued,
    takenAt: time(takenAt),
    returnedAt: time(returnedAt),
    // A word of the runners' list, never free text: anything else is shown as no phase.
    phase: (ROUND_PHASES as readonly unknown[]).includes(phase) ? (phase as string) : null,
    engineAlive: typeof enginePid === 'number' && Number.isInteger(enginePid) && enginePid > 0 && pidExists(enginePid),
  };
}
