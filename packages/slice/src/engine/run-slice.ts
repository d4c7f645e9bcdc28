// `leap slice run` as a library: every input checked before anything is touched; any end frees worktrees and lock.
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { UsageError, findRepoRoot, readTimeLimit, resolveStateDir, showValue } from '@leap/core';
import { readSlice } from '../definition/index.js';
import type { Receipt } from '../definition/slice-schema.js';
import { lockSlice } from '../slice-lock.js';
import { reapSlice } from '../reap.js';
import { resolveAgents } from './agents.js';
import { CostMeter } from './cost.js';
import { resolveCommit } from './git.js';
import { ensureSpine } from './integrate.js';
import { proofIdleLimit } from './proof.js';
import { engineLog, readOrWriteRun, readRecord, slicePaths, writeIgnoreFiles } from './records.js';
import type { RunRecord, SliceRunner } from './records.js';
import { Engine } from './slice-engine.js';
import { createLocalRunner, type LocalRunnerOptions } from '../runner/local-runner.js';

export interface RunSliceOptions {
  file: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Default LEAP_SANDBOX, else on; off reaches the runner's workers as LEAP_SANDBOX=off (CONTRACT section 13). */
  sandbox?: 'on' | 'off';
  /** Balls built at once (default the machine's parallelism, `os.availableParallelism()`, capped by the balls). */
  jobs?: number;
  agentsFile?: string;
  builder?: string;
  /** The jury (default the built-in agents, claude, codex and gemini; the builder's family is refused). */
  reviewers?: string[];
  alternates?: string[];
  /** Stop spending past this many US dollars: the balls not yet done are held. */
  maxCostUsd?: number;
  progress?: (line: string) => void;
  createRunner?: (context: LocalRunnerOptions) => SliceRunner;
  /** Leaf and proof time limit in ms (default VERI_TIMEOUT's, else 900 s; 0: none). */
  timeoutMs?: number;
  /** `--notify CMD` as an argv: told of the run's end (done, bail, stop, cost-budget; notifySliceEnd). */
  notify?: string[];
}

export type RunSummary = Awaited<ReturnType<Engine['run']>>;

/** Run a slice; returns its summary, or throws a LeapError (exit 2) for bad input before anything runs. */
export async function runSlice(options: RunSliceOptions): Promise<RunSummary> {
  const started = Date.now();
  const cwd = options.cwd ?? process.cwd();
  const env =
    options.sandbox === 'off' ? { ...(options.env ?? process.env), LEAP_SANDBOX: 'off' } : (options.env ?? process.env);
  const say = options.progress ?? (() => {});
  const file = resolve(cwd, options.file);
  const slice = readSlice(file);
  const repoRoot = findRepoRoot(cwd);
  if (repoRoot === null)
    throw new UsageError(`${options.file}: leap slice run works in a git repository; ${cwd} is not in one`);
  // Where no sandbox can be made, refused (exit 2) before anything is locked, built or written.
  const { chooseSandbox, sandboxSetting } = await import('@leap/verify');
  chooseSandbox(sandboxSetting(options.sandbox, env), env);
  const { agentsFile, builder, reviewers, alternates } = options;
  const agents = await resolveAgents({ env, agentsFile, builder, reviewers, alternates });
  const paths = slicePaths(repoRoot, slice.id);
  const known = readRecord<RunRecord>(paths.run);
  const base = known?.base ?? (await resolveCommit(repoRoot, slice.base));
  const given = `${options.file}: "base": ${showValue(slice.base)}`;
  if (base === null) throw new UsageError(`${given} does not resolve to a commit in ${repoRoot}`);
  const recorded = `${paths.run}: "base": ${base} (recorded on the first run)`;
  if (known?.base !== undefined && (await resolveCommit(repoRoot, base)) === null)
    throw new UsageError(`${recorded} is no longer a commit in ${repoRoot}`);
  const jobs = Math.max(1, options.jobs ?? Math.min(availableParallelism(), slice.balls.length));
  const stateDir = resolveStateDir(env, repoRoot);
  // A malformed VERI_TIMEOUT or VERI_IDLE_TIMEOUT is bad input before anything runs.
  const timeoutMs = options.timeoutMs ?? readTimeLimit(null, null, env).ms;
  proofIdleLimit(env);
  const lock = lockSlice(repoRoot, slice.id);
  if (lock.deadEngine !== null) {
    // A dead engine's leaves outlive it in sessions of their own: ended before anything touches their worktrees.
    const { endOrphanLeaves, findOrphanLeaves } = await import('@leap/supervise');
    const orphans = findOrphanLeaves(stateDir, lock.deadEngine);
    const ended = await endOrphanLeaves(orphans);
    const names = orphans.map((o) => o.name).join(', ');
    const said = `ended ${ended} process${ended === 1 ? '' : 'es'} of ${names}`;
    if (orphans.length > 0) say(`resuming after engine ${lock.deadEngine} died: ${said}`);
  }
  const runner = (options.createRunner ?? createLocalRunner)({ repoRoot, paths, stateDir, env });
  const stop = { reason: null as string | null };
  const onSignal = (signal: NodeJS.Signals) => {
    stop.reason ??= `stopped by ${signal}`;
    say(`${signal}: finishing the rounds in flight, holding the balls not yet done`);
    runner.interrupt?.(stop.reason);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    for (const path of reapSlice(repoRoot, slice.id)) say(`removed a worktree left by an earlier run: ${path}`);
    writeIgnoreFiles(paths, stateDir);
    const run = readOrWriteRun(paths, slice.id, base, options.file);
    const log = engineLog(stateDir, env);
    // The builder's git identities (engine commits', the base's author): no juror may see them; read once.
    const { gitAliases } = await import('@leap/verify');
    const [spineTip, authors] = await Promise.all([
      ensureSpine(repoRoot, slice.id, run.base),
      gitAliases(repoRoot, run.base, { isolate: true, ceiling: true }),
    ]);
    const meter = new CostMeter(stateDir, started, options.maxCostUsd);
    const context = { slice, run, repoRoot, paths, stateDir, env, agents, runner, log, say, jobs, timeoutMs, meter };
    const engine = new Engine({ ...context, stopped: () => stop.reason, file: options.file, spineTip, authors });
    const summary = await engine.run(started);
    await notifySliceEnd(options.notify, summary, meter.over(), { cwd: repoRoot, env, say });
    return summary;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await runner.close().catch(() => undefined);
    lock.release();
  }
}

// --notify (CONTRACT section 14), supervised, unsandboxed: a failure is said, never the run's result.
type NotifyPlace = { cwd: string; env: NodeJS.ProcessEnv; say: (line: string) => void };
async function notifySliceEnd(argv: string[] | undefined, summary: RunSummary, over: boolean, place: NotifyPlace) {
  if (argv === undefined || argv.length === 0) return;
  const event = summary.receipt === 1 ? 'done' : over ? 'cost-budget' : summary.stopped !== null ? 'stop' : 'bail';
  const { runNotify } = await import('@leap/supervise');
  const { slice, spine, receipt, stopped } = summary;
  const balls = summary.balls.map((b) => ({ id: b.id, receipt: b.receipt, reason: b.reason }));
  const payload = { slice, spine, receipt, code: sliceExitCode(receipt), stopped, balls, spent_usd: summary.spent.usd };
  const told = await runNotify(argv, event, { ...payload, ms: summary.wallMs, ts: new Date().toISOString() }, place);
  const said =
    told.problem === null ? `${event} told (leaf ${told.leaf})` : `${told.problem} (the run's result stands)`;
  place.say(`notify: ${said}`);
}

// `leap slice run`'s exit code (CONTRACT section 7), also the notify event's `code`; exits 2 and 1 are thrown earlier.
export const sliceExitCode = (receipt: Receipt): 0 | 1 | 3 => (receipt === 1 ? 0 : receipt === -1 ? 1 : 3);

// The summary ending `leap slice run`: balls, receipts, rounds, reviewers, builders that ran dry, wall time.
const WORD = { 1: 'passed', 0: 'held', [-1]: 'refused' } as const;

export function renderSummary(s: RunSummary): string {
  const width = Math.max(4, ...s.balls.map((b) => b.id.length));
  const lines = [
    `slice ${s.slice}: ${WORD[s.receipt]} (${s.receipt}) on ${s.spine} at ${s.spineCommit.slice(0, 12)}` +
      (s.stopped === null ? '' : `; ${s.stopped}`),
    `${'ball'.padEnd(width)}  receipt  rounds  candidate     reason`,
    ...s.balls.map(
      (b) =>
        `${b.id.padEnd(width)}  ${String(b.receipt).padStart(7)}  ${String(b.rounds).padStart(6)}  ` +
        `${(b.candidate ?? '-').slice(0, 12).padEnd(12)}  ${b.reused ? '(passed earlier) ' : ''}${oneLine(b.reason)}`,
    ),
  ];
  if (s.aggregate !== null) lines.push(`aggregate jury: ${s.aggregate.value}: ${oneLine(s.aggregate.reason)}`);
  lines.push(`reviewers: ${s.reviewers.length === 0 ? 'none seated' : s.reviewers.join(', ')}`);
  for (const d of s.dried ?? [])
    lines.push(`ran dry: ${d.agent} (${d.family}) ${d.cause}: ${oneLine(d.message)}; skipped for the rest of the run`);
  const unknown = s.spent.unknown > 0 ? ` (${s.spent.unknown} leaf/leaves reported no cost)` : '';
  if (s.spent.leaves.length > 0) lines.push(`spent: $${s.spent.usd.toFixed(4)}${unknown}`);
  if (s.record !== null) lines.push(`record: ${s.record}`);
  lines.push(`wall time: ${(s.wallMs / 1000).toFixed(1)} s`);
  return `${lines.join('\n')}\n`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}
