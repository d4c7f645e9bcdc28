// The log folded into a RunModel: an event lacking a field the view needs is a problem of its line; unknown kinds stay.
import { isString, type LeafRun, LeafFold, lacks, type Need, named, num, str, type Usage } from './_fold-leaves.js';
import { BALL_REVIEW_NEEDS, SLICE_NEEDS, type SliceRun, SliceFold } from './_fold-slices.js';
import type { LogProblem, LogRecord } from './read-log.js';

export { ballOfLeafName, type LeafRun, type Usage } from './_fold-leaves.js';
export type { BallRun, RoundAnswer, RoundLive, SliceRun } from './_fold-slices.js';

type Logged = { line: number; at: number; issue: number | null };
type OfStep = Logged & { step: string | null };
export type Verdict = OfStep & {
  phase: string;
  verdict: string;
  reason: string;
  agent: string | null;
  /** The tests it names (`tests`, or `test`): a flaky verdict's tests that passed once and failed once. */
  tests: string[];
};
type Tick = Logged & { action: string; title: string | null; criterion: number | null };
type Bail = OfStep & { cause: string; class: string; detail: string | null };
/** A leaf whose vendor ran dry, launched again with the next agent of its role's list (`next` null: none was left). */
type Fallover = OfStep & {
  slice: string | null;
  ball: string | null;
  leaf: string;
  role: string;
  agent: string;
  cause: string;
  message: string;
  next: string | null;
};
type Stop = OfStep & { mode: string | null; action: string; leaf: string | null };
type Mark = Logged & { name: string; anchor: string | null };

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
  unknown: Array<{ line: number; at: number; event: string }>;
  suiteRuns: number;
  problems: LogProblem[];
  firstAt: number | null;
  lastAt: number | null;
}

const text = (field: string, expected: string): Need => [field, expected, isString];
const LEAF: Need = ['leaf', 'a leaf name', named];
/** The kinds the view knows, and the fields it needs of each: an event without one is a problem, skipped. */
const NEEDS = new Map<string, Need[]>([
  ['launch', [LEAF]],
  ['exit', [LEAF]],
  ['usage', [LEAF]],
  ['verdict', [text('phase', 'a phase'), text('verdict', 'PASS, REJECT, ERROR or flaky')]],
  ['tick', [text('action', 'a ledger action')]],
  ['bail', [text('cause', 'a cause')]],
  ['fallover', [text('leaf', 'a leaf name'), text('agent', 'an agent name')]],
  ['stop', [text('action', 'requested, cleared or honoured')]],
  ['mark', []],
  ['suite', []],
  ...SLICE_NEEDS,
]);

export function foldRun(records: readonly LogRecord[], problems: readonly LogProblem[] = []): RunModel {
  const folder = createFolder();
  for (const r of records) folder.add(r);
  return folder.finish(problems);
}

type Fold = { model: RunModel; leaves: LeafFold; slices: SliceFold };

/** A fold fed one record at a time; `finish` (once, after the last record) puts the reader's `problems` first. */
export function createFolder(): { add(r: LogRecord): void; finish(problems?: readonly LogProblem[]): RunModel } {
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
  const fold: Fold = { model, leaves: new LeafFold(model.leaves, model.usage), slices: new SliceFold(model.slices) };
  return {
    add: (r) => add(fold, r),
    finish: (problems = []) => {
      model.problems = [...problems, ...model.problems];
      fold.slices.finish([...model.leaves, ...model.usage]);
      return model;
    },
  };
}

function add(fold: Fold, r: LogRecord): void {
  const { model: m } = fold;
  const e = r.event;
  m.firstAt = m.firstAt === null ? r.at : Math.min(m.firstAt, r.at);
  m.lastAt = m.lastAt === null ? r.at : Math.max(m.lastAt, r.at);
  const needs = e.event === 'review' && isString(e.slice) && isString(e.ball) ? BALL_REVIEW_NEEDS : NEEDS.get(e.event);
  if (needs === undefined) m.unknown.push({ line: r.line, at: r.at, event: e.event });
  if (needs === undefined || lacks(m.problems, r, needs)) return;
  const { line, at } = r;
  const issue = num(e.issue);
  const where = { line, at, issue, step: str(e.step) };
  switch (e.event) {
    case 'launch':
    case 'exit':
      fold.leaves[e.event](r, e.leaf as string);
      break;
    case 'usage':
      fold.leaves.usage(r);
      break;
    case 'verdict':
      m.verdicts.push({
        ...where,
        phase: e.phase as string,
        verdict: e.verdict as string,
        reason: str(e.reason) ?? '',
        agent: str(e.agent),
        tests: (Array.isArray(e.tests) ? e.tests : [e.test]).filter(isString),
      });
      break;
    case 'tick':
      m.ticks.push({ line, at, issue, action: e.action as string, title: str(e.title), criterion: num(e.criterion) });
      break;
    case 'bail': {
      const detail = str(e.message) ?? str(e.reason) ?? str(e.narration) ?? str(e.spent);
      m.bails.push({ ...where, cause: e.cause as string, class: str(e.class) ?? '?', detail });
      break;
    }
    case 'fallover':
      m.fallovers.push({
        ...where,
        slice: str(e.slice),
        ball: str(e.ball),
        leaf: e.leaf as string,
        role: str(e.role) ?? '?',
        agent: e.agent as string,
        cause: str(e.cause) ?? '?',
        message: str(e.message) ?? '',
        next: str(e.next),
      });
      break;
    case 'stop':
      m.stops.push({ ...where, mode: str(e.mode), action: e.action as string, leaf: str(e.leaf) });
      break;
    case 'mark':
      m.marks.push({ line, at, issue, name: str(e.name) ?? '', anchor: str(e.anchor) });
      break;
    case 'suite':
      m.suiteRuns += 1;
      break;
    default:
      fold.slices.add(r);
  }
}

/** Each issue whose run was last seen stopping (a stop honoured, no leaf launched nor bail since): how and where. */
type Stopped = { mode: string; at: number; step: string | null; line: number };
export function stoppedRuns(model: RunModel): Map<number, Stopped> {
  const stopped = new Map<number, Stopped>();
  // A stop honoured without a mode is the conductor ending on a signal.
  for (const s of model.stops)
    if (s.action === 'honoured' && s.issue !== null)
      stopped.set(s.issue, { mode: s.mode ?? 'signal', at: s.at, step: s.step, line: s.line });
  for (const later of [...model.leaves, ...model.bails]) {
    const s = later.issue === null ? undefined : stopped.get(later.issue);
    if (s !== undefined && later.line > s.line) stopped.delete(later.issue as number);
  }
  return stopped;
}

export const flakyVerdicts = (model: RunModel): Verdict[] => model.verdicts.filter((v) => v.verdict === 'flaky');
