// The log folded into a RunModel: events of kinds core does not know are kept as `unknown`.
import { EVENT_KINDS, type LeapEvent } from '@leap/core';
import { type LeafRun, LeafFold, str, type Usage } from './_fold-leaves.js';
import { type SliceRun, SliceFold } from './_fold-slices.js';
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

const KNOWN = new Set<string>(EVENT_KINDS);

export function foldRun(records: readonly LogRecord[], problems: readonly LogProblem[] = []): RunModel {
  const folder = createFolder();
  for (const r of records) folder.add(r);
  return folder.finish(problems);
}

type Fold = { model: RunModel; leaves: LeafFold; slices: SliceFold };

/** A fold fed one record at a time; `finish` (once, after the last record) takes the reader's `problems`. */
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
      model.problems = [...problems];
      fold.slices.finish([...model.leaves, ...model.usage]);
      return model;
    },
  };
}

function add(fold: Fold, r: LogRecord): void {
  const { model: m } = fold;
  m.firstAt = m.firstAt === null ? r.at : Math.min(m.firstAt, r.at);
  m.lastAt = m.lastAt === null ? r.at : Math.max(m.lastAt, r.at);
  if (!KNOWN.has(r.event.event)) return void m.unknown.push({ line: r.line, at: r.at, event: r.event.event });
  const e = r.event as unknown as LeapEvent; // core's reader checked it
  const { line, at } = r;
  const { issue, step } = e;
  const where = { line, at, issue, step };
  switch (e.event) {
    case 'launch':
      fold.leaves.launch(r, e);
      break;
    case 'exit':
      fold.leaves.exit(r, e);
      break;
    case 'usage':
      fold.leaves.usage(r);
      break;
    case 'verdict': {
      const { phase, verdict, reason } = e;
      const tests = e.tests ?? (e.test === undefined ? [] : [e.test]);
      m.verdicts.push({ ...where, phase, verdict, reason, agent: e.agent ?? null, tests });
      break;
    }
    case 'tick':
      m.ticks.push({ line, at, issue, action: e.action, title: e.title, criterion: e.criterion ?? null });
      break;
    case 'bail': {
      const detail = e.message ?? str(e.reason) ?? str(e.narration) ?? str(e.spent);
      m.bails.push({ ...where, cause: e.cause, class: e.class, detail });
      break;
    }
    case 'fallover': {
      const { leaf, role, agent, cause, message, next } = e;
      m.fallovers.push({
        ...where,
        slice: e.slice ?? null,
        ball: e.ball ?? null,
        leaf,
        role,
        agent,
        cause,
        message,
        next,
      });
      break;
    }
    case 'stop':
      m.stops.push({ ...where, mode: e.mode, action: e.action, leaf: e.leaf ?? null });
      break;
    case 'mark':
      m.marks.push({ line, at, issue, name: e.name, anchor: e.anchor });
      break;
    case 'suite':
      m.suiteRuns += 1;
      break;
    default:
      fold.slices.add(e, at);
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
