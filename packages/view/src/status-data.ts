// What `leap status` shows (CONTRACT section 10), as data: `--json` prints it, the terminal view draws it.
import { isoTimestamp } from '@leap/core';
import { breakDownCost, type CostTotal } from './cost.js';
import type { ViewData } from './collect-view.js';
import {
  flakyVerdicts,
  stoppedRuns,
  type Bail,
  type BallRun,
  type Fallover,
  type LeafRun,
  type Verdict,
} from './fold-run.js';
import {
  readTimeLimitShown,
  supervisorEnv,
  type FileProblem,
  type LedgerState,
  type RemoteRoundState,
} from './read-state.js';

type RemoteShown = Pick<RemoteRoundState, 'round' | 'job' | 'state' | 'worker' | 'phase'>;

/** A record of the log with its time as text, without its line number. */
type Stamped<T extends { line: number; at: number }> = Omit<T, 'line' | 'at'> & { at: string };

interface StatusIssue {
  issue: number;
  title: string | null;
  ledger: string | null;
  /** Each step; `current`: the first not done; `phase`: of the latest leaf on the step, when any ran. */
  steps: Array<LedgerState['steps'][number] & { current: boolean; phase: string | null }>;
  total: number;
  done: number;
  refactorPending: number;
  cost: CostTotal | null;
  /** The run last stopped by request (or a signal) and not run since: the mode, when, and the step in flight. */
  stopped: { mode: string; at: string; step: string | null } | null;
}

type StatusLeaf = Pick<LeafRun, 'leaf' | 'issue' | 'step' | 'slice' | 'ball' | 'phase' | 'attempt' | 'pid'> & {
  startedAt: string;
  elapsedMs: number;
  timeLimitMs: number;
  timeLimitSource: string;
  /** elapsed / time limit; null when the limit is 0 (none). */
  fraction: number | null;
};

export interface StatusData {
  repo: string;
  stateDir: string;
  eventsFile: string;
  now: string;
  log: ViewData['log'] & { unknown: Array<{ line: number; event: string }> };
  fileProblems: FileProblem[];
  issues: StatusIssue[];
  running: StatusLeaf[];
  /** Rounds on bullmq workers whose record is not written yet, as a running engine last saw the queue. */
  remote: Array<{ slice: string; ball: string; sinceMs: number } & RemoteShown>;
  /** Leaves the log says ran outside the sandbox (`--sandbox off`, CONTRACT section 13), most recent last. */
  unsandboxed: { leaves: number; last: string | null };
  /** Leaves with a launch and no exit whose supervisor is gone. */
  lost: Array<{ leaf: string; issue: number | null; step: string | null; startedAt: string }>;
  verdicts: Array<Stamped<Omit<Verdict, 'tests'>>>;
  bails: Array<Stamped<Bail>>;
  /** The last leaves whose vendor ran dry and the agent that took each over (null: none was left). */
  fallovers: Array<Stamped<Omit<Fallover, 'step'>>>;
  stop: { pending: string | null; unreadable: string | null };
  /** Tests seen to pass once and fail once on the same tree: each flaky verdict, oldest first. */
  flaky: Array<Stamped<Omit<Verdict, 'verdict' | 'agent'>>>;
  slices: Array<{
    id: string;
    record: boolean;
    balls: Array<
      Pick<BallRun, 'id' | 'wave' | 'state' | 'deps'> & {
        rounds: Array<{ round: number; receipt: number | null }>;
        receipt: number | null;
        merged: boolean;
        reviews: number;
      }
    >;
    cost: CostTotal | null;
  }>;
  cost: CostTotal;
}

// Core's formatter: Date#toISOString would load the local time zone, a millisecond of start-up.
const iso = (ms: number): string => (Number.isFinite(ms) ? isoTimestamp(ms) : '');
// The keys keep their order: `at` stays where it was.
const stamped = <T extends { line: number; at: number }>({ line, ...r }: T): Stamped<T> =>
  ({ ...r, at: iso(r.at) }) as unknown as Stamped<T>;

/** How many verdicts and bails the status keeps (the report has them all). */
const LAST_VERDICTS = 5;

export function buildStatus(view: ViewData, env: NodeJS.ProcessEnv): StatusData {
  const { model } = view;
  const cost = breakDownCost(model.usage);
  const sliceCost = new Map(cost.bySlice.map((r) => [r.slice, r.total]));
  const issues = issuesOf(view, new Map(cost.byIssue.map((r) => [r.issue, r.total])));
  const unsandboxed = model.leaves.filter((r) => r.sandbox === 'off');
  const running = model.leaves.filter((r) => r.status === 'running').map((r) => runningOf(view, r, env));
  return {
    repo: view.repo,
    stateDir: view.stateDir,
    eventsFile: view.eventsFile,
    now: iso(view.now),
    log: { ...view.log, unknown: model.unknown.map((u) => ({ line: u.line, event: u.event })) },
    fileProblems: view.fileProblems,
    issues,
    running,
    remote: remoteRounds(view),
    unsandboxed: { leaves: unsandboxed.length, last: unsandboxed.at(-1)?.leaf ?? null },
    lost: model.leaves
      .filter((r) => r.status === 'lost')
      .map((r) => ({ leaf: r.leaf, issue: r.issue, step: r.step, startedAt: iso(r.launchedAt) })),
    verdicts: model.verdicts.slice(-LAST_VERDICTS).map(({ tests, ...v }) => stamped(v)),
    bails: model.bails.slice(-LAST_VERDICTS).map(stamped),
    fallovers: model.fallovers.slice(-LAST_VERDICTS).map(({ step, ...f }) => stamped(f)),
    stop: { pending: view.stop.mode, unreadable: view.stop.unreadable },
    flaky: flakyVerdicts(model).map((v) => ({
      at: iso(v.at),
      issue: v.issue,
      step: v.step,
      phase: v.phase,
      tests: v.tests,
      reason: v.reason,
    })),
    slices: model.slices.map((s) => ({
      id: s.id,
      record: view.sliceRecords.some((r) => r.id === s.id && r.record),
      balls: s.balls.map((b) => ({
        id: b.id,
        wave: b.wave,
        state: b.state,
        deps: b.deps,
        rounds: b.rounds.map((r) => ({ round: r.round, receipt: r.receipt })),
        receipt: b.receipt?.value ?? null,
        merged: b.merged !== null,
        reviews: b.reviews.length,
      })),
      cost: sliceCost.get(s.id) ?? null,
    })),
    cost: cost.total,
  };
}

/** Each issue a ledger, a leaf, a verdict or a stop names, in order, with its steps and where the run is. */
function issuesOf(view: ViewData, issueCost: Map<number | null, CostTotal>): StatusIssue[] {
  const { model } = view;
  const stopped = stoppedRuns(model);
  const numbers = new Set<number>(view.ledgers.map((l) => l.issue));
  const latestPhase = new Map<string, string | null>();
  for (const run of model.leaves) {
    if (run.issue === null) continue;
    numbers.add(run.issue);
    if (run.step !== null) latestPhase.set(`${run.issue}\n${run.step}`, run.phase);
  }
  for (const v of model.verdicts) if (v.issue !== null) numbers.add(v.issue);
  for (const issue of stopped.keys()) numbers.add(issue);
  return [...numbers]
    .sort((a, b) => a - b)
    .map((issue) => {
      const ledger = view.ledgers.find((l) => l.issue === issue);
      const steps = ledger?.steps ?? [];
      const currentAt = steps.findIndex((s) => s.state !== 'done');
      const phase = (title: string): string | null => latestPhase.get(`${issue}\n${title}`) ?? null;
      const s = stopped.get(issue);
      return {
        issue,
        title: ledger?.title ?? null,
        ledger: ledger?.file ?? null,
        steps: steps.map((s, i) => ({ ...s, current: i === currentAt, phase: phase(s.title) })),
        total: steps.length,
        done: steps.filter((s) => s.state === 'done').length,
        refactorPending: steps.filter((s) => s.state === 'refactor-pending').length,
        cost: issueCost.get(issue) ?? null,
        stopped: s === undefined ? null : { mode: s.mode, at: iso(s.at), step: s.step },
      };
    });
}

function runningOf(view: ViewData, r: LeafRun, env: NodeJS.ProcessEnv): StatusLeaf {
  const limit = timeLimitOf(view.stateDir, r, env);
  const elapsedMs = Math.max(0, view.now - r.launchedAt);
  const { leaf, issue, step, slice, ball, phase, attempt, pid } = r;
  const times = { startedAt: iso(r.launchedAt), elapsedMs, timeLimitMs: limit.ms, timeLimitSource: limit.source };
  const fraction = limit.ms === 0 ? null : elapsedMs / limit.ms;
  return { leaf, issue, step, slice, ball, phase, attempt, pid, ...times, fraction };
}

function timeLimitOf(stateDir: string, r: LeafRun, env: NodeJS.ProcessEnv): { ms: number; source: string } {
  if (r.timeoutMs !== null) return { ms: r.timeoutMs, source: 'launch event' };
  // The limit the supervisor itself read: from its own environment when this machine shows it.
  return readTimeLimitShown(stateDir, r.issue, (r.pid === null ? null : supervisorEnv(r.pid)) ?? env);
}

/** The distributed rounds in flight, oldest first. */
function remoteRounds(view: ViewData): StatusData['remote'] {
  const out: StatusData['remote'] = [];
  for (const slice of view.sliceRecords) {
    for (const ball of slice.balls) {
      const r = ball.remote;
      // Done once its round record is written; a dead engine's picture is stale.
      if (r === undefined || !r.engineAlive || ball.rounds.some((x) => x.round === r.round)) continue;
      const since = r.state === 'queued' ? null : r.state === 'building' ? r.takenAt : r.returnedAt;
      const { round, job, state, worker, phase } = r;
      const sinceMs = Math.max(0, view.now - (since ?? r.queuedAt));
      out.push({ slice: slice.id, ball: ball.id, round, job, state, worker, phase, sinceMs });
    }
  }
  return out.sort((a, b) => b.sinceMs - a.sinceMs);
}
