// The log folded into a RunModel: events of kinds core does not know are kept as `unknown`.
import { EVENT_KINDS, type EventKind, type EventOf, type LeapEvent } from '@leap/core';
import { type LeafRun, LeafFold, str, type Usage } from './_fold-leaves.js';
import { type SliceRun, SliceFold } from './_fold-slices.js';
import type { LogProblem, LogRecord } from './read-log.js';

export { ballOfLeafName, type LeafRun, type Usage } from './_fold-leaves.js';
export type { BallRun, SliceRun } from './_fold-slices.js';

type Where = { line: number; at: number; issue: number | null; step: string | null };
type Row<K extends EventKind, F extends keyof EventOf<K>, More = unknown> = Where & Pick<EventOf<K>, F> & More;
/** `tests`: the tests it names (`tests`, or `test`): a flaky verdict's tests that passed once and failed once. */
export type Verdict = Row<'verdict', 'phase' | 'verdict' | 'reason', { agent: string | null; tests: string[] }>;
/** A leaf whose vendor ran dry, launched again with the next agent of its role's list (`next` null: none was left). */
type Fallover = Row<
  'fallover',
  'leaf' | 'role' | 'agent' | 'cause' | 'message' | 'next',
  Record<'slice' | 'ball', string | null>
>;

export class RunModel {
  leaves: LeafRun[] = [];
  verdicts: Verdict[] = [];
  ticks: Array<Row<'tick', 'action' | 'title', { criterion: number | null }>> = [];
  bails: Array<Row<'bail', 'cause' | 'class', { detail: string | null }>> = [];
  fallovers: Fallover[] = [];
  stops: Array<Row<'stop', 'mode' | 'action', { leaf: string | null }>> = [];
  marks: Array<Row<'mark', 'name' | 'anchor'>> = [];
  usage: Usage[] = [];
  slices: SliceRun[] = [];
  unknown: Array<{ line: number; at: number; event: string }> = [];
  suiteRuns = 0;
  problems: LogProblem[] = [];
  firstAt: number | null = null;
  lastAt: number | null = null;
}

const KNOWN = new Set<string>(EVENT_KINDS);

export function foldRun(records: readonly LogRecord[], problems: readonly LogProblem[] = []): RunModel {
  const folder = createFolder();
  for (const r of records) folder.add(r);
  return folder.finish(problems);
}

/** A fold fed one record at a time; `finish` (once, after the last record) takes the reader's `problems`. */
export function createFolder() {
  const m = new RunModel();
  const leaves = new LeafFold(m.leaves, m.usage);
  const slices = new SliceFold(m.slices);
  const add = (r: LogRecord): void => {
    m.firstAt = Math.min(m.firstAt ?? r.at, r.at);
    m.lastAt = Math.max(m.lastAt ?? r.at, r.at);
    if (!KNOWN.has(r.event.event)) return void m.unknown.push({ line: r.line, at: r.at, event: r.event.event });
    const e = r.event as unknown as LeapEvent; // core's reader checked it
    const where = { line: r.line, at: r.at, issue: e.issue, step: e.step };
    if (e.event === 'launch') leaves.launch(r, e);
    else if (e.event === 'exit') leaves.exit(r, e);
    else if (e.event === 'usage') leaves.usage(r);
    else if (e.event === 'verdict') {
      const { phase, verdict, reason } = e;
      const tests = e.tests ?? (e.test === undefined ? [] : [e.test]);
      m.verdicts.push({ ...where, phase, verdict, reason, agent: e.agent ?? null, tests });
    } else if (e.event === 'tick')
      m.ticks.push({ ...where, action: e.action, title: e.title, criterion: e.criterion ?? null });
    else if (e.event === 'bail') {
      const detail = e.message ?? str(e.reason) ?? str(e.narration) ?? str(e.spent);
      m.bails.push({ ...where, cause: e.cause, class: e.class, detail });
    } else if (e.event === 'fallover') {
      const { leaf, role, agent, cause, message, next, slice = null, ball = null } = e;
      m.fallovers.push({ ...where, slice, ball, leaf, role, agent, cause, message, next });
    } else if (e.event === 'stop') m.stops.push({ ...where, mode: e.mode, action: e.action, leaf: e.leaf ?? null });
    else if (e.event === 'mark') m.marks.push({ ...where, name: e.name, anchor: e.anchor });
    else if (e.event === 'suite') m.suiteRuns += 1;
    else slices.add(e, r.at);
  };
  const finish = (problems: readonly LogProblem[] = []): RunModel => {
    m.problems = [...problems];
    slices.finish([...m.leaves, ...m.usage]);
    return m;
  };
  return { add, finish };
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
