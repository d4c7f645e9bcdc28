// Fields are checked where used: an event missing one is a problem with its line; an unknown kind is kept.
import type { LogProblem, LogRecord, RawEvent } from './read-log.js';
import { usageOf, type UsageEntry } from '@leap/core';

/** What one agent leaf cost, as its CLI reported it: null where it did not say. */
export interface Usage extends UsageEntry {
  line: number;
  at: number;
}

/** One leaf from launch to exit; `status` is the exit's, or `running` while no exit is recorded. */
export interface LeafRun {
  leaf: string;
  run: string | null;
  issue: number | null;
  step: string | null;
  actor: string | null;
  phase: string | null;
  attempt: number | null;
  slice: string | null;
  ball: string | null;
  pid: number | null;
  timeoutMs: number | null;
  /** The launch event's `sandbox` (CONTRACT section 13): `bwrap`, `off`, or null when it does not say. */
  sandbox: string | null;
  line: number;
  launchedAt: number;
  exitedAt: number | null;
  durationMs: number | null;
  status: string;
  code: number | null;
  usage: Usage | null;
}

export interface Verdict {
  line: number;
  at: number;
  issue: number | null;
  step: string | null;
  phase: string;
  verdict: string;
  reason: string;
  agent: string | null;
  /** The tests it names (`tests`, or `test`): a flaky verdict's tests that passed once and failed once. */
  tests: string[];
}
interface Tick {
  line: number;
  at: number;
  issue: number | null;
  action: string;
  title: string | null;
  criterion: number | null;
}
interface Bail {
  line: number;
  at: number;
  issue: number | null;
  step: string | null;
  cause: string;
  class: string;
  detail: string | null;
}
/** A leaf whose vendor ran dry, launched again with the next agent of its role's list (`next` null: none was left). */
interface Fallover {
  line: number;
  at: number;
  issue: number | null;
  step: string | null;
  slice: string | null;
  ball: string | null;
  leaf: string;
  role: string;
  agent: string;
  cause: string;
  message: string;
  next: string | null;
}
interface Stop {
  line: number;
  at: number;
  issue: number | null;
  step: string | null;
  mode: string | null;
  action: string;
  leaf: string | null;
}
interface Mark {
  line: number;
  at: number;
  issue: number | null;
  name: string;
  anchor: string | null;
}
interface Unknown {
  line: number;
  at: number;
  event: string;
}

/** The builder's answer block of a round (round-N.json's `answer`). */
export interface RoundAnswer {
  hypothesis: string;
  move: string;
}
/** A round's live proof evidence (round-N.json's `live`): its exit, time, and its output, bounded and hashed. */
export interface RoundLive {
  code: number | null;
  ms: number | null;
  sha256: string;
  bytes: number | null;
  truncated: boolean;
  output: string;
  note?: string;
}
interface Round {
  round: number;
  receipt: number | null;
  at: number;
  answer?: RoundAnswer;
  live?: RoundLive;
}
interface Receipt {
  value: number;
  candidate: string | null;
  evidence: string;
  at: number;
}
interface Review {
  reviewer: string | null;
  family: string | null;
  verdict: string;
  value: number;
  candidate: string;
  at: number;
}

export interface BallRun {
  slice: string;
  id: string;
  wave: number | null;
  state: string | null;
  deps: string[];
  rounds: Round[];
  receipt: Receipt | null;
  reviews: Review[];
  merged: { commit: string; candidate: string; at: number } | null;
  firstAt: number;
}

/** A slice: its balls in order of first appearance, and the reviews of the whole change. */
export interface SliceRun {
  id: string;
  balls: BallRun[];
  aggregate: Review[];
  firstAt: number;
}

export interface RunModel {
  leaves: LeafRun[];
  verdicts: Verdict[];
  ticks: Tick[];
  bails: Bail[];
  fallovers: Fallover[];
  stops: Stop[];
  marks: Mark[];
  usage: Usage[];
  slices: SliceRun[];
  unknown: Unknown[];
  /** How many `suite` events (the toolchain's runs of the project's tests) the log holds. */
  suiteRuns: number;
  problems: LogProblem[];
  firstAt: number | null;
  lastAt: number | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);
const receiptOf = (v: unknown): number | null => (v === -1 || v === 0 || v === 1 ? v : null);
const issueOf = (e: RawEvent): number | null => num(e.issue);
const stepOf = (e: RawEvent): string | null => str(e.step);

const BALL_LEAVES = new Set(['build', 'review', 'proof', 'reproof', 'live']);

/** Which ball a LEAP leaf name is about: `build-BALL-N`, `review-BALL-FAMILY`, `proof-`, `reproof-`, `live-BALL-N`, `champion-BALL`. */
export function ballOfLeafName(leaf: string): string | null {
  // Most leaves (develop-*, verify-*) are none of these: no regex for them, on every launch and usage of a long log.
  const dash = leaf.indexOf('-');
  const kind = dash < 0 ? '' : leaf.slice(0, dash);
  if (kind === 'champion') return leaf.slice(dash + 1) || null;
  if (!BALL_LEAVES.has(kind)) return null;
  const m = /^[a-z]+-(.+)-[A-Za-z0-9_.]+$/.exec(leaf);
  return m?.[1] ?? null;
}
/** A fold fed one record at a time, so a one-shot reader can drop each parsed line once folded. */
export interface RunFolder {
  add(record: LogRecord): void;
  /** The model, with the reader's `problems` before the fold's own; call once, after the last record. */
  finish(problems?: readonly LogProblem[]): RunModel;
}

/** Fold the records of a log into a RunModel; `problems` are the reader's, to which the fold adds its own. */
export function foldRun(records: readonly LogRecord[], problems: readonly LogProblem[] = []): RunModel {
  const folder = createFolder();
  for (const r of records) folder.add(r);
  return folder.finish(problems);
}

export function createFolder(): RunFolder {
  const model: RunModel = {
    leaves: [],
    verdicts: [],
    ticks: [],
    bails: [],
    fallovers: [],
    stops: [],
    marks: [],
    usage: [],
    slices: [],
    unknown: [],
    suiteRuns: 0,
    problems: [],
    firstAt: null,
    lastAt: null,
  };
  const byRun = new Map<string, LeafRun>();
  const named = new Map<string, LeafRun[]>();
  const open = new Map<string, LeafRun[]>();
  const slices = new Map<string, SliceRun>();
  const ballOwners = new Map<string, Set<string>>();
  const missing = (r: LogRecord, field: string, expected: string): void => {
    model.problems.push({ line: r.line, message: `${r.event.event} event: expected ${JSON.stringify(field)} to be ${expected}, got ${JSON.stringify(r.event[field] ?? null)}; skipped` });
  };
  const pendingReviews: Review[] = [];
  const sliceOf = (sliceId: string, at: number): SliceRun => {
    let slice = slices.get(sliceId);
    if (slice === undefined) {
      slice = { id: sliceId, balls: [], aggregate: [], firstAt: at };
      slices.set(sliceId, slice);
      model.slices.push(slice);
    }
    return slice;
  };
  const ballOf = (sliceId: string, ballId: string, at: number): BallRun => {
    const slice = sliceOf(sliceId, at);
    let ball = slice.balls.find((b) => b.id === ballId);
    if (ball === undefined) {
      ball = { slice: sliceId, id: ballId, wave: null, state: null, deps: [], rounds: [], receipt: null, reviews: [], merged: null, firstAt: at };
      slice.balls.push(ball);
      const owners = ballOwners.get(ballId) ?? new Set<string>();
      owners.add(sliceId);
      ballOwners.set(ballId, owners);
    }
    return ball;
  };
  const sliceBall = (r: LogRecord): BallRun | null => {
    const slice = str(r.event.slice);
    const ball = str(r.event.ball);
    if (slice === null || slice === '') {
      missing(r, 'slice', 'a slice id');
      return null;
    }
    if (ball === null || ball === '') {
      missing(r, 'ball', 'a ball id');
      return null;
    }
    return ballOf(slice, ball, r.at);
  };

  const add = (r: LogRecord): void => {
    const e = r.event;
    model.firstAt = model.firstAt === null ? r.at : Math.min(model.firstAt, r.at);
    model.lastAt = model.lastAt === null ? r.at : Math.max(model.lastAt, r.at);
    switch (e.event) {
      case 'launch': {
        const leaf = str(e.leaf);
        if (leaf === null || leaf === '') {
          missing(r, 'leaf', 'a leaf name');
          break;
        }
        const run: LeafRun = {
          leaf,
          run: str(e.run),
          issue: issueOf(e),
          step: stepOf(e),
          actor: str(e.actor),
          phase: str(e.phase),
          attempt: num(e.attempt),
          slice: str(e.slice),
          ball: str(e.ball) ?? ballOfLeafName(leaf),
          pid: num(e.pid),
          timeoutMs: count(e.timeout_ms),
          sandbox: str(e.sandbox),
          line: r.line,
          launchedAt: r.at,
          exitedAt: null,
          durationMs: null,
          status: 'running',
          code: null,
          usage: null,
        };
        model.leaves.push(run);
        pushTo(named, leaf, run);
        if (run.run !== null) byRun.set(run.run, run);
        const stack = open.get(leaf) ?? [];
        stack.push(run);
        open.set(leaf, stack);
        break;
      }
      case 'exit': {
        const leaf = str(e.leaf);
        if (leaf === null || leaf === '') {
          missing(r, 'leaf', 'a leaf name');
          break;
        }
        const runId = str(e.run);
        const stack = open.get(leaf) ?? [];
        let run = runId === null ? undefined : byRun.get(runId);
        if (run !== undefined && run.status !== 'running') run = undefined;
        run ??= runId === null ? stack[stack.length - 1] : undefined;
        const duration = count(e.duration_ms);
        if (run === undefined) {
          // An exit with no launch: a supervisor that refused to start (a stop request, bad input).
          run = {
            leaf,
            run: runId,
            issue: issueOf(e),
            step: stepOf(e),
            actor: null,
            phase: null,
            attempt: null,
            slice: str(e.slice),
            ball: str(e.ball) ?? ballOfLeafName(leaf),
            pid: null,
            timeoutMs: null,
            sandbox: str(e.sandbox),
            line: r.line,
            launchedAt: r.at - (duration ?? 0),
            exitedAt: null,
            durationMs: null,
            status: 'running',
            code: null,
            usage: null,
          };
          model.leaves.push(run);
          pushTo(named, leaf, run);
        }
        const at = stack.indexOf(run);
        if (at >= 0) stack.splice(at, 1);
        run.exitedAt = r.at;
        run.durationMs = duration ?? Math.max(0, r.at - run.launchedAt);
        run.status = str(e.status) ?? 'exited';
        run.code = num(e.code);
        break;
      }
      case 'verdict': {
        const phase = str(e.phase);
        const verdict = str(e.verdict);
        if (phase === null) {
          missing(r, 'phase', 'a phase');
          break;
        }
        if (verdict === null) {
          missing(r, 'verdict', 'PASS, REJECT, ERROR or flaky');
          break;
        }
        const tests = Array.isArray(e.tests) ? e.tests.filter((t): t is string => typeof t === 'string') : str(e.test) === null ? [] : [e.test as string];
        model.verdicts.push({ line: r.line, at: r.at, issue: issueOf(e), step: stepOf(e), phase, verdict, reason: str(e.reason) ?? '', agent: str(e.agent), tests });
        break;
      }
      case 'tick': {
        const action = str(e.action);
        if (action === null) {
          missing(r, 'action', 'a ledger action');
          break;
        }
        model.ticks.push({ line: r.line, at: r.at, issue: issueOf(e), action, title: str(e.title), criterion: num(e.criterion) });
        break;
      }
      case 'bail': {
        const cause = str(e.cause);
        if (cause === null) {
          missing(r, 'cause', 'a cause');
          break;
        }
        const detail = str(e.message) ?? str(e.reason) ?? str(e.narration) ?? str(e.spent);
        model.bails.push({ line: r.line, at: r.at, issue: issueOf(e), step: stepOf(e), cause, class: str(e.class) ?? '?', detail });
        break;
      }
      case 'fallover': {
        const leaf = str(e.leaf);
        const agent = str(e.agent);
        if (leaf === null || agent === null) {
          missing(r, leaf === null ? 'leaf' : 'agent', leaf === null ? 'a leaf name' : 'an agent name');
          break;
        }
        model.fallovers.push({
          line: r.line,
          at: r.at,
          issue: issueOf(e),
          step: stepOf(e),
          slice: str(e.slice),
          ball: str(e.ball),
          leaf,
          role: str(e.role) ?? '?',
          agent,
          cause: str(e.cause) ?? '?',
          message: str(e.message) ?? '',
          next: str(e.next),
        });
        break;
      }
      case 'stop': {
        const action = str(e.action);
        if (action === null) {
          missing(r, 'action', 'requested, cleared or honoured');
          break;
        }
        model.stops.push({ line: r.line, at: r.at, issue: issueOf(e), step: stepOf(e), mode: str(e.mode), action, leaf: str(e.leaf) });
        break;
      }
      case 'mark': {
        model.marks.push({ line: r.line, at: r.at, issue: issueOf(e), name: str(e.name) ?? '', anchor: str(e.anchor) });
        break;
      }
      case 'usage': {
        const entry = usageOf(e);
        if (entry === null) {
          missing(r, 'leaf', 'a leaf name');
          break;
        }
        const usage: Usage = { line: r.line, at: r.at, ...entry };
        const run = findLeafFor(named.get(entry.leaf) ?? [], usage);
        if (run !== undefined) {
          run.usage = usage;
          usage.issue ??= run.issue;
          usage.step ??= run.step;
          usage.slice ??= run.slice;
          usage.ball ??= run.ball;
        }
        usage.ball ??= ballOfLeafName(entry.leaf);
        model.usage.push(usage);
        break;
      }
      case 'ball': {
        const ball = sliceBall(r);
        if (ball === null) break;
        ball.state = str(e.state) ?? ball.state;
        ball.wave = num(e.wave) ?? ball.wave;
        // The engine says a ball's end on its ball event too (a hold, a block): a receipt event, when there is one, says more.
        const value = receiptOf(e.receipt);
        if (value !== null && ball.receipt === null) ball.receipt = { value, candidate: null, evidence: str(e.reason) ?? '', at: r.at };
        if (Array.isArray(e.deps)) ball.deps = e.deps.filter((d): d is string => typeof d === 'string');
        break;
      }
      case 'round': {
        const ball = sliceBall(r);
        const round = num(e.round);
        if (ball === null) break;
        if (round === null) {
          missing(r, 'round', 'a round number');
          break;
        }
        const receipt = receiptOf(e.receipt);
        const known = ball.rounds.find((x) => x.round === round);
        if (known === undefined) ball.rounds.push({ round, receipt, at: r.at });
        else Object.assign(known, { receipt: receipt ?? known.receipt, at: r.at });
        break;
      }
      case 'receipt': {
        const ball = sliceBall(r);
        const value = receiptOf(e.value);
        if (ball === null) break;
        if (value === null) {
          missing(r, 'value', '-1, 0 or 1');
          break;
        }
        ball.receipt = { value, candidate: str(e.candidate), evidence: str(e.evidence) ?? '', at: r.at };
        break;
      }
      case 'review': {
        const value = receiptOf(e.value);
        const candidate = str(e.candidate) ?? '';
        if (value === null) {
          missing(r, 'value', '-1, 0 or 1');
          break;
        }
        const review: Review = { reviewer: str(e.reviewer), family: str(e.family), verdict: str(e.verdict) ?? '?', value, candidate, at: r.at };
        const sliceId = str(e.slice);
        const ballId = str(e.ball);
        if (sliceId !== null && ballId !== null) sliceBall(r)?.reviews.push(review);
        else if (sliceId !== null) sliceOf(sliceId, r.at).aggregate.push(review);
        else {
          const owner = model.slices.flatMap((s) => s.balls).find((b) => b.receipt?.candidate === candidate || b.merged?.candidate === candidate);
          if (owner !== undefined) owner.reviews.push(review);
          else pendingReviews.push(review);
        }
        break;
      }
      case 'merge': {
        const ball = sliceBall(r);
        if (ball === null) break;
        ball.merged = { commit: str(e.commit) ?? '', candidate: str(e.candidate) ?? '', at: r.at };
        break;
      }
      case 'suite':
        // A suite run of ground truth (its tree, command, exit, time): known, counted, shown nowhere yet.
        model.suiteRuns += 1;
        break;
      default:
        model.unknown.push({ line: r.line, at: r.at, event: e.event });
    }
  };
  const finish = (problems: readonly LogProblem[] = []): RunModel => {
    model.problems = [...problems, ...model.problems];
    // Reviews written before their ball's receipt: place them by candidate now that every receipt is known.
    for (const review of pendingReviews.splice(0)) {
      const owner = model.slices.flatMap((s) => s.balls).find((b) => b.receipt?.candidate === review.candidate || b.merged?.candidate === review.candidate);
      owner?.reviews.push(review);
    }
    // A LEAP leaf names its ball, not its slice: that is the one slice holding a ball of that id.
    const place = (item: { slice: string | null; ball: string | null }): void => {
      if (item.slice === null && item.ball !== null) item.slice = soleOwner(ballOwners, item.ball);
    };
    for (const run of model.leaves) place(run);
    for (const usage of model.usage) place(usage);
    return model;
  };
  return { add, finish };
}

/** Each issue whose run was last seen stopping (a stop honoured, no leaf launched nor bail since): how and where. */
export function stoppedRuns(model: RunModel): Map<number, { mode: string; at: number; step: string | null }> {
  const stopped = new Map<number, { mode: string; at: number; step: string | null; line: number }>();
  // A stop honoured without a mode is the conductor ending on a signal.
  for (const s of model.stops) if (s.action === 'honoured' && s.issue !== null) stopped.set(s.issue, { mode: s.mode ?? 'signal', at: s.at, step: s.step, line: s.line });
  for (const later of [...model.leaves, ...model.bails]) {
    const s = later.issue === null ? undefined : stopped.get(later.issue);
    if (s !== undefined && later.line > s.line) stopped.delete(later.issue as number);
  }
  return new Map([...stopped].map(([issue, { mode, at, step }]) => [issue, { mode, at, step }]));
}

/** The flaky verdicts (a test that passed once and failed once on the same tree, CONTRACT section 9). */
export function flakyVerdicts(model: RunModel): Verdict[] {
  return model.verdicts.filter((v) => v.verdict === 'flaky');
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

function soleOwner(owners: Map<string, Set<string>>, ball: string): string | null {
  const set = owners.get(ball);
  return set !== undefined && set.size === 1 ? ([...set][0] ?? null) : null;
}

// The latest earlier run of that name (and issue) with no usage yet; a second usage of one run stands alone.
function findLeafFor(leaves: readonly LeafRun[], usage: Usage): LeafRun | undefined {
  for (let i = leaves.length - 1; i >= 0; i--) {
    const run = leaves[i];
    if (run === undefined || run.leaf !== usage.leaf || run.launchedAt > usage.at) continue;
    if (usage.issue !== null && run.issue !== null && run.issue !== usage.issue) continue;
    if (run.usage === null) return run;
  }
  return undefined;
}
