// The fold's field readers and needs, and leaf runs: each launch paired with its exit, and its usage.
import { usageOf, type UsageEntry } from '@leap/core';
import type { LogProblem, LogRecord } from './read-log.js';

export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);
export const isString = (v: unknown): v is string => typeof v === 'string';
export const named = (v: unknown): boolean => typeof v === 'string' && v !== '';

export type Need = [field: string, expected: string, ok: (v: unknown) => boolean];

/** Whether the event lacks a field of `needs`: the first it lacks is a problem of its line, added to `problems`. */
export function lacks(problems: LogProblem[], r: LogRecord, needs: readonly Need[]): boolean {
  const miss = needs.find(([field, , ok]) => !ok(r.event[field]));
  if (miss === undefined) return false;
  const [field, expected] = miss;
  const expectation = `${r.event.event} event: expected ${JSON.stringify(field)} to be ${expected}, `;
  problems.push({ line: r.line, message: `${expectation}got ${JSON.stringify(r.event[field] ?? null)}; skipped` });
  return true;
}

export type Usage = UsageEntry & { line: number; at: number };

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
  sandbox: string | null;
  line: number;
  launchedAt: number;
  exitedAt: number | null;
  durationMs: number | null;
  status: string;
  code: number | null;
  usage: Usage | null;
}

const BALL_LEAVES = new Set(['build', 'review', 'proof', 'reproof', 'live']);

/** The ball of a LEAP leaf name: `build-BALL-N`, `review-BALL-FAMILY`, `(re)proof-`, `live-BALL-N`, `champion-BALL`. */
export function ballOfLeafName(leaf: string): string | null {
  const dash = leaf.indexOf('-');
  const kind = dash < 0 ? '' : leaf.slice(0, dash);
  if (kind === 'champion') return leaf.slice(dash + 1) || null;
  if (!BALL_LEAVES.has(kind)) return null;
  return /^[a-z]+-(.+)-[A-Za-z0-9_.]+$/.exec(leaf)?.[1] ?? null;
}

export class LeafFold {
  private readonly byRun = new Map<string, LeafRun>();
  private readonly named = new Map<string, LeafRun[]>();
  private readonly open = new Map<string, LeafRun[]>();

  constructor(
    private readonly leaves: LeafRun[],
    private readonly usages: Usage[],
  ) {}

  launch(r: LogRecord, leaf: string): void {
    const run = this.newRun(r, leaf, r.at);
    if (run.run !== null) this.byRun.set(run.run, run);
    pushTo(this.open, leaf, run);
  }

  exit(r: LogRecord, leaf: string): void {
    const e = r.event;
    const runId = str(e.run);
    const stack = this.open.get(leaf) ?? [];
    let run = runId === null ? undefined : this.byRun.get(runId);
    if (run?.status !== 'running') run = runId === null ? stack.at(-1) : undefined;
    const duration = count(e.duration_ms);
    run ??= this.newRun(r, leaf, r.at - (duration ?? 0));
    const at = stack.indexOf(run);
    if (at >= 0) stack.splice(at, 1);
    run.exitedAt = r.at;
    run.durationMs = duration ?? Math.max(0, r.at - run.launchedAt);
    run.status = str(e.status) ?? 'exited';
    run.code = num(e.code);
  }

  usage(r: LogRecord): void {
    const usage: Usage = { line: r.line, at: r.at, ...(usageOf(r.event) as UsageEntry) };
    const { at, issue } = usage;
    // The latest earlier run of that name (and issue) with no usage yet; a second usage of one run stands alone.
    const fits = (l: LeafRun): boolean =>
      l.usage === null && l.launchedAt <= at && (issue === null || l.issue === null || l.issue === issue);
    const run = this.named.get(usage.leaf)?.findLast(fits);
    if (run !== undefined) {
      run.usage = usage;
      usage.issue ??= run.issue;
      usage.step ??= run.step;
      usage.slice ??= run.slice;
      usage.ball ??= run.ball;
    }
    usage.ball ??= ballOfLeafName(usage.leaf);
    this.usages.push(usage);
  }

  /** A run from its launch, or from an exit without one (a supervisor refusing to start: a stop request, bad input). */
  private newRun(r: LogRecord, leaf: string, launchedAt: number): LeafRun {
    const e = r.event;
    const l: Record<string, unknown> = e.event === 'launch' ? e : {};
    const run: LeafRun = {
      leaf,
      run: str(e.run),
      issue: num(e.issue),
      step: str(e.step),
      actor: str(l.actor),
      phase: str(l.phase),
      attempt: num(l.attempt),
      slice: str(e.slice),
      ball: str(e.ball) ?? ballOfLeafName(leaf),
      pid: num(l.pid),
      timeoutMs: count(l.timeout_ms),
      sandbox: str(e.sandbox),
      line: r.line,
      launchedAt,
      exitedAt: null,
      durationMs: null,
      status: 'running',
      code: null,
      usage: null,
    };
    this.leaves.push(run);
    pushTo(this.named, leaf, run);
    return run;
  }
}

export const getOr = <K, V>(map: Map<K, V>, key: K, make: () => V): V => map.get(key) ?? map.set(key, make()).get(key)!;

export const pushTo = <K, V>(map: Map<K, V[]>, key: K, value: V): number => getOr(map, key, () => []).push(value);
