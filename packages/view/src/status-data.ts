// What `leap status` shows (CONTRACT section 10), as data: `--json` prints it, the terminal view draws it.
import { DEFAULT_TIMEOUT_S, isoTimestamp, orElse, readTimeLimit } from '@leap/core';
import { breakDownCost, type CostTotal } from './cost.js';
import type { ViewData } from './collect-view.js';
import { flakyVerdicts, stoppedRuns, type LeafRun } from './fold-run.js';
import { supervisorEnv } from './read-state.js';

export type StatusData = ReturnType<typeof buildStatus>;

const iso = (ms: number): string => (Number.isFinite(ms) ? isoTimestamp(ms) : '');
// The keys keep their order: `at` stays where it was.
const stamped = <T extends { line: number; at: number }>({ line, ...r }: T) =>
  ({ ...r, at: iso(r.at) }) as Omit<T, 'line' | 'at'> & { at: string };

/** How many verdicts, bails and fall-overs the status keeps (the report has them all). */
const LAST_VERDICTS = 5;

export function buildStatus(view: ViewData, env: NodeJS.ProcessEnv) {
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
    stop: view.stop,
    flaky: flakyVerdicts(model).map(({ at, issue, step, phase, tests, reason }) => {
      return { at: iso(at), issue, step, phase, tests, reason };
    }),
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

// Each step's `current`: the first not done; `phase`: of the latest leaf on the step; `stopped`: by request or signal.
function issuesOf(view: ViewData, issueCost: Map<number | null, CostTotal>) {
  const { model } = view;
  const stopped = stoppedRuns(model);
  const numbers = new Set<number>([...view.ledgers.map((l) => l.issue), ...stopped.keys()]);
  for (const x of [...model.leaves, ...model.verdicts]) if (x.issue !== null) numbers.add(x.issue);
  const latestPhase = new Map<string, string | null>();
  for (const run of model.leaves) if (run.step !== null) latestPhase.set(`${run.issue}\n${run.step}`, run.phase);
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

function runningOf(view: ViewData, r: LeafRun, env: NodeJS.ProcessEnv) {
  const limit = timeLimitOf(view.stateDir, r, env);
  const elapsedMs = Math.max(0, view.now - r.launchedAt);
  const { leaf, issue, step, slice, ball, phase, attempt, pid } = r;
  const times = { startedAt: iso(r.launchedAt), elapsedMs, timeLimitMs: limit.ms, timeLimitSource: limit.source };
  const fraction = limit.ms === 0 ? null : elapsedMs / limit.ms;
  return { leaf, issue, step, slice, ball, phase, attempt, pid, ...times, fraction };
}

function timeLimitOf(stateDir: string, r: LeafRun, env: NodeJS.ProcessEnv): { ms: number; source: string } {
  if (r.timeoutMs !== null) return { ms: r.timeoutMs, source: 'launch event' };
  // The limit the supervisor itself read (from its own environment when this machine shows it), else the default
  // (the supervisor refuses a limit it cannot read).
  const supervisor = (r.pid === null ? null : supervisorEnv(r.pid)) ?? env;
  return orElse(() => readTimeLimit(stateDir, r.issue, supervisor), {
    ms: DEFAULT_TIMEOUT_S * 1000,
    source: 'default',
  });
}

function remoteRounds(view: ViewData) {
  const rounds = view.sliceRecords.flatMap((slice) =>
    slice.balls.flatMap(({ id: ball, remote: r, rounds }) => {
      if (r === undefined || !r.engineAlive || rounds.some((x) => x.round === r.round)) return [];
      const since = r.state === 'queued' ? null : r.state === 'building' ? r.takenAt : r.returnedAt;
      const { round, job, state, worker, phase } = r;
      const sinceMs = Math.max(0, view.now - (since ?? r.queuedAt));
      return [{ slice: slice.id, ball, round, job, state, worker, phase, sinceMs }];
    }),
  );
  return rounds.sort((a, b) => b.sinceMs - a.sinceMs);
}
