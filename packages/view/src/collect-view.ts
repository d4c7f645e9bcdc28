import { join } from 'node:path';
import { findRepoRoot, isProcessAlive, parseKeyValues, readProcStat, resolveStateDir } from '@leap/core';
import { newBall, newSlice } from './_fold-slices.js';
import { createFolder, type BallRun, type LeafRun, type RunModel, type SliceRun } from './fold-run.js';
import { readLogOnce, type LogTail } from './read-log.js';
import { readLedgers, readPendingStop, readSliceRecords, readText, type FileProblem } from './read-state.js';

/** Where to look, when "now" is (tests pin it), and a tail kept across redraws (`--watch`). */
export type ViewOptions = { cwd: string; env: NodeJS.ProcessEnv; now?: number; tail?: LogTail };

export type ViewData = ReturnType<typeof collectView>;

/** Read and fold everything; never throws for what the files hold. */
export function collectView({ cwd, env, now, tail }: ViewOptions) {
  const stateDir = resolveStateDir(env, cwd);
  const repo = findRepoRoot(cwd) ?? cwd;
  const eventsFile = join(stateDir, 'events.jsonl');
  // One shot: fold each line as read, keep none; a watch keeps its records.
  const folder = createFolder();
  const snapshot = tail === undefined ? readLogOnce(eventsFile, folder.add) : tail.readMore().snapshot();
  if (tail !== undefined) for (const r of snapshot.records) folder.add(r);
  const model = folder.finish(snapshot.problems);
  const fileProblems: FileProblem[] = [];
  const ledgers = readLedgers(stateDir, fileProblems);
  const sliceRecords = readSliceRecords(repo, fileProblems);
  mergeSliceRecords(model, sliceRecords);
  for (const slice of model.slices) assignWaves(slice);
  judgeOpenLeaves(model.leaves, stateDir);
  return {
    repo,
    stateDir,
    eventsFile,
    now: now ?? Date.now(),
    log: { exists: snapshot.exists, events: snapshot.events, tornTail: snapshot.tornTail, problems: model.problems },
    fileProblems,
    model,
    ledgers,
    stop: readPendingStop(stateDir),
    sliceRecords,
  };
}

// An open leaf runs only while its supervisor does (the latest run of its name); any other is `lost`.
function judgeOpenLeaves(leaves: LeafRun[], stateDir: string): void {
  const latest = new Map(leaves.map((run) => [run.leaf, run]));
  for (const run of leaves)
    if (run.status === 'running' && (latest.get(run.leaf) !== run || !isSupervisorAlive(run, stateDir)))
      run.status = 'lost';
}

function isSupervisorAlive(run: LeafRun, stateDir: string): boolean {
  const named = /^[A-Za-z0-9]/.test(run.leaf) && !run.leaf.includes('/');
  // An unreadable pid file says nothing.
  const text = named ? readText(join(stateDir, `${run.leaf}.pid`)) : null;
  if (text !== null && text !== '') {
    const { first, values } = parseKeyValues(text);
    const pid = Number(first.trim());
    if (Number.isInteger(pid) && pid > 0 && (run.run === null || values.run === run.run))
      return isProcessAlive({ pid, starttime: values.starttime, bootId: values.boot_id });
  }
  return run.pid !== null && isProcessAlive({ pid: run.pid }) && !startedAfter(run.pid, run.launchedAt);
}

let bootMs: number | undefined;

// A process started after `at` only reused the launch's pid. Start times are ticks after boot (USER_HZ, 100); an
// unknown boot or start time is NaN, which compares false.
function startedAfter(pid: number, at: number): boolean {
  bootMs ??= Number(/^btime (\d+)$/m.exec(readText('/proc/stat') ?? '')?.[1]) * 1000;
  return bootMs + Number(readProcStat(pid)?.[19]) * 10 > at + 2000;
}

function mergeSliceRecords(model: RunModel, records: ReturnType<typeof readSliceRecords>): void {
  for (const record of records) {
    const slice =
      model.slices.find((s) => s.id === record.id) ?? newSlice(model.slices, record.id, Number.POSITIVE_INFINITY);
    for (const rb of record.balls) {
      const ball = slice.balls.find((b) => b.id === rb.id) ?? newBall(slice, rb.id, Number.POSITIVE_INFINITY);
      if (ball.deps.length === 0) ball.deps = [...rb.deps];
      ball.wave ??= rb.wave;
      // `extra`: the answer and live proof, when round-N.json held them.
      for (const { round, receipt, ...extra } of rb.rounds) {
        const known = ball.rounds.find((x) => x.round === round);
        if (known === undefined) ball.rounds.push({ round, receipt, at: Number.NaN, ...extra });
        else Object.assign(known, extra);
      }
      ball.rounds.sort((a, b) => a.round - b.round);
      if (ball.receipt === null && rb.receipt !== null)
        ball.receipt = { value: rb.receipt, candidate: null, evidence: rb.reason ?? 'result.json', at: Number.NaN };
    }
  }
}

// A ball's wave, when no event gave it: 0 without dependencies, else one more than its latest dependency's.
function assignWaves(slice: SliceRun): void {
  const byId = new Map(slice.balls.map((b) => [b.id, b]));
  const seen = new Set<BallRun>();
  const waveOf = (ball: BallRun): number | null => {
    if (ball.wave !== null) return ball.wave;
    if (seen.has(ball)) return null; // a cycle: validate refuses it; the view does not loop
    seen.add(ball);
    let wave = 0;
    for (const dep of ball.deps) {
      const d = byId.get(dep);
      const w = d === undefined ? null : waveOf(d);
      if (w === null) return null;
      wave = Math.max(wave, w + 1);
    }
    ball.wave = wave;
    return wave;
  };
  for (const ball of slice.balls) waveOf(ball);
}
