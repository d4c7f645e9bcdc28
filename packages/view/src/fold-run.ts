// The log folded into a RunModel: an event lacking a field the view needs is a problem of its line; unknown kinds stay.
import { isString, type LeafRun, LeafFold, lacks, type Need, named, num, str, type Usage } from './_fold-leaves.js';
import { BALL_REVIEW_NEEDS, SLICE_NEEDS, type SliceRun, SliceFold } from './_fold-slices.js';
import type { LogProblem, LogRecord } from './read-log.js';

export { ballOfLeafName, type LeafRun, type Usage } from './_fold-leaves.js';
export type { BallRun, RoundAnswer, RoundLive, SliceRun } from './_fold-slices.js';

interface Logged {
  line: number;
  at: number;
  issue: number | null;
}
interface OfStep extends Logged {
  step: string | null;
}
export interface Verdict extends OfStep {
  phase: string;
  verdict: string;
  reason: string;
  agent: string | null;
  /** The tests it names (`tests`, or `test`): a flaky verdict's tests that passed once and failed once. */
  tests: string[];
}
interface Tick extends Logged {
  action: string;
  title: string | null;
  criterion: number | null;
}
export interface Bail extends OfStep {
  cause: string;
  class: string;
  detail: string | null;
}
/** A leaf whose vendor ran dry, launched again with the next agent of its role's list (`next` null: none was left). */
export interface Fallover extends OfStep {
  slice: string | null;
  ball: string | null;
  leaf: string;
  role: string;
  agent: string;
  cause: string;
  message: string;
  next: string | null;
}
interface Stop extends OfStep {
  mode: string | null;
  action: string;
  leaf: string | null;
}
interface Mark extends Logged {
  name: string;
  anchor: string | null;
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
  unknown: Array<{ line: number; at: number; event: string }>;
  /** How many `suite` events (the toolchain's runs of the project's tests) the log holds. */
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

type Fold = { model: RunModel; leaves: LeafFold; slices: SliceFold };

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
  const [line, at, issue, step] = [r.line, r.at, num(e.issue), str(e.step)];
  const where = { line, at, issue, step };
  switch (e.event) {
    case 'launch':
      fold.leaves.launch(r, e.leaf as string);
      break;
    case 'exit':
      fold.leaves.exit(r, e.leaf as string);
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
      // A suite run of ground truth (its tree, command, exit, time): known, counted, shown nowhere yet.
      m.suiteRuns += 1;
      break;
    default:
      fold.slices.add(r);
  }
}

/** Each issue whose run was last seen stopping (a stop honoured, no leaf launched nor bail since): how and where. */
export function stoppedRuns(
  model: RunModel,
): Map<number, { mode: string; at: number; step: string | null; line: number }> {
  const stopped = new Map<number, { mode: string; at: number; step: string | null; line: number }>();
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

/** The flaky verdicts (a test that passed once and failed once on the same tree, CONTRACT section 9). */
export function flakyVerdicts(model: RunModel): Verdict[] {
  return model.verdicts.filter((v) => v.verdict === 'flaky');
}
