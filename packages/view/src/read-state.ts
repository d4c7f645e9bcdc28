// Each file may be absent; one that cannot be read is a problem naming it, never a crash.
import { readdirSync, readFileSync, type Stats, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  isJsonObject,
  orElse,
  parseLedger,
  pidExists,
  readFileIfExists,
  readStopRequest,
  statePaths,
} from '@leap/core';
import { LEAP_DIR, RECORD_ID, ROUND_PHASES, ROUND_RECORD, slicePaths, type SlicePaths } from '@leap/core';
import { isString, num } from './_fold-leaves.js';
import { receiptOf } from './_fold-slices.js';

export type FileProblem = { file: string; message: string };

/** `record`: whether `record.json` exists: written only when the slice passed. */
export type SliceRecord = ReturnType<typeof readSliceRecords>[number];

export type RemoteRoundState = NonNullable<ReturnType<typeof remoteOf>>;

const ISSUE_FILE = /^issue-([1-9][0-9]{0,15})\.md$/;

const listDir = (dir: string): string[] => orElse(() => readdirSync(dir).sort(), []);
const statOf = (path: string): Stats | undefined => orElse(() => statSync(path), undefined);
export const readText = (file: string): string | null => orElse(() => readFileSync(file, 'utf8'), null);

const headingOf = (text: string | null): string | null =>
  text === null ? null : (/^# (.+)$/m.exec(text)?.[1]?.trim() ?? null);

export function readLedgers(stateDir: string, problems: FileProblem[]) {
  const ledgers = listDir(stateDir).flatMap((name) => {
    const m = ISSUE_FILE.exec(name);
    if (m === null) return [];
    const file = join(stateDir, name);
    try {
      const text = readFileSync(file, 'utf8');
      const { steps } = parseLedger(text, file);
      // The local tracker's issue title (`.tdd/issues/N.md`), else the ledger's heading (the plan's first line).
      const issue = Number(m[1]);
      const title = headingOf(readFileIfExists(statePaths(stateDir).issue(issue))) ?? headingOf(text);
      return [{ issue, file, title, steps: steps.map(({ title, state, criterion }) => ({ title, state, criterion })) }];
    } catch (error) {
      problems.push({ file, message: (error as Error).message });
      return [];
    }
  });
  return ledgers.sort((a, b) => a.issue - b.issue);
}

export function readPendingStop(stateDir: string): { pending: string | null; unreadable: string | null } {
  const stop = readStopRequest(statePaths(stateDir).stop);
  return {
    pending: stop.kind === 'requested' ? stop.mode : null,
    unreadable: stop.kind === 'unreadable' ? stop.reason : null,
  };
}

export function supervisorEnv(pid: number): NodeJS.ProcessEnv | null {
  const pairs = readText(`/proc/${pid}/environ`)?.matchAll(/(?<=^|\0)([^=\0]+)=([^\0]*)/g);
  return pairs === undefined ? null : Object.fromEntries([...pairs].map((m) => [m[1], m[2]]));
}

function readJson(file: string, problems: FileProblem[]): Record<string, unknown> | null {
  const text = readText(file);
  if (text === null) return null;
  try {
    const json: unknown = JSON.parse(text);
    if (isJsonObject(json)) return json;
    problems.push({ file, message: 'expected a JSON object; ignored' });
  } catch (error) {
    problems.push({ file, message: `not JSON (${(error as Error).message}); ignored` });
  }
  return null;
}

export function readSliceRecords(root: string, problems: FileProblem[]) {
  return listDir(join(root, LEAP_DIR)).flatMap((id) => {
    const paths = slicePaths(root, id);
    // A slice id starts with a letter or digit: `.worktrees` and the like are the engine's own.
    if (!RECORD_ID.test(id) || statOf(paths.dir)?.isDirectory() !== true) return [];
    const run = readJson(paths.run, problems);
    const declared = new Map<string, Declared>();
    // run.json names the slice file, whose balls give the dependencies.
    const definition = typeof run?.file === 'string' ? readJson(resolve(root, run.file), []) : null;
    const balls = Array.isArray(run?.balls) ? run.balls : Array.isArray(definition?.balls) ? definition.balls : [];
    for (const b of balls as unknown[]) {
      if (!isJsonObject(b) || typeof b.id !== 'string') continue;
      const deps = Array.isArray(b.deps) ? b.deps.filter(isString) : [];
      declared.set(b.id, { deps, wave: typeof b.wave === 'number' ? b.wave : null });
    }
    const record = statOf(paths.record)?.isFile() === true;
    const names = new Set([
      ...declared.keys(),
      ...listDir(paths.dir).filter((n) => RECORD_ID.test(n) && statOf(paths.ball(n))?.isDirectory() === true),
    ]);
    return [{ id, record, balls: [...names].map((ball) => readBall(paths, ball, declared.get(ball), problems)) }];
  });
}

type Declared = { deps: string[]; wave: number | null };

function readBall(paths: SlicePaths, id: string, info: Declared | undefined, problems: FileProblem[]) {
  const rounds = listDir(paths.ball(id)).flatMap((name) => {
    const m = ROUND_RECORD.exec(name);
    const json = m === null ? null : readJson(join(paths.ball(id), name), problems);
    const receipt = receiptOf(json?.receipt ?? json?.value);
    return m === null ? [] : [{ round: Number(m[1]), receipt, ...answerOf(json?.answer), ...liveOf(json?.live) }];
  });
  const result = readJson(paths.result(id), problems);
  const remote = remoteOf(readJson(paths.remoteRound(id), problems));
  return {
    id,
    deps: info?.deps ?? [],
    wave: info?.wave ?? null,
    rounds: rounds.sort((a, b) => a.round - b.round),
    receipt: receiptOf(result?.receipt ?? result?.value),
    reason: typeof result?.reason === 'string' ? result.reason : null,
    ...(remote === null ? {} : { remote }),
  };
}

// A round's answer and live proof, each when round-N.json holds it whole (to spread into the round).
function answerOf(value: unknown) {
  if (!isJsonObject(value) || typeof value.hypothesis !== 'string' || typeof value.move !== 'string') return {};
  return { answer: { hypothesis: value.hypothesis, move: value.move } };
}

function liveOf(v: unknown) {
  if (!isJsonObject(v) || typeof v.sha256 !== 'string' || typeof v.output !== 'string') return {};
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
  if (typeof round !== 'number' || typeof job !== 'string' || queued === null) return null;
  if (state !== 'queued' && state !== 'building' && state !== 'returned') return null;
  return {
    round,
    job,
    state,
    worker: typeof worker === 'string' ? worker : null,
    queuedAt: queued,
    takenAt: time(takenAt),
    returnedAt: time(returnedAt),
    phase: (ROUND_PHASES as readonly unknown[]).includes(phase) ? (phase as string) : null,
    engineAlive: typeof enginePid === 'number' && Number.isInteger(enginePid) && enginePid > 0 && pidExists(enginePid),
  };
}
