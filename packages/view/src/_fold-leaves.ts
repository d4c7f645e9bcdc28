// The fold's field readers, and leaf runs: each launch paired with its exit, and its usage.
import { type EventOf, usageOf, type UsageEntry } from '@leap/core';
import type { LogRecord } from './read-log.js';

export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
export const isString = (v: unknown): v is string => typeof v === 'string';
export type Usage = UsageEntry & { line: number; at: number };

/** One leaf from launch to exit; `status` is the exit's, or `running` while no exit is recorded. */
export type LeafRun = ReturnType<typeof newRun>;

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

  launch(r: LogRecord, e: EventOf<'launch'>): void {
    const run = this.newRun(r.line, e, r.at);
    if (run.run !== null) this.byRun.set(run.run, run);
    pushTo(this.open, e.leaf, run);
  }

  exit(r: LogRecord, e: EventOf<'exit'>): void {
    const runId = e.run ?? null;
    const stack = this.open.get(e.leaf) ?? [];
    let run = runId === null ? undefined : this.byRun.get(runId);
    if (run?.status !== 'running') run = runId === null ? stack.at(-1) : undefined;
    run ??= this.newRun(r.line, e, r.at - e.duration_ms);
    const at = stack.indexOf(run);
    if (at >= 0) stack.splice(at, 1);
    Object.assign(run, { exitedAt: r.at, durationMs: e.duration_ms, status: e.status, code: e.code });
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

  private newRun(line: number, e: EventOf<'launch' | 'exit'>, launchedAt: number): LeafRun {
    const run = newRun(line, e, launchedAt);
    this.leaves.push(run);
    pushTo(this.named, e.leaf, run);
    return run;
  }
}

/** A run from its launch, or from an exit without one (a supervisor refusing to start: a stop request, bad input). */
function newRun(line: number, e: EventOf<'launch' | 'exit'>, launchedAt: number) {
  const l = e.event === 'launch' ? e : undefined;
  return {
    leaf: e.leaf,
    run: e.run ?? null,
    issue: e.issue,
    step: e.step,
    actor: l?.actor ?? null,
    phase: l?.phase ?? null,
    attempt: l?.attempt ?? null,
    slice: str(e.slice),
    ball: str(e.ball) ?? ballOfLeafName(e.leaf),
    pid: l?.pid ?? null,
    timeoutMs: l?.timeout_ms ?? null,
    sandbox: e.sandbox ?? null,
    line,
    launchedAt,
    exitedAt: null as number | null,
    durationMs: null as number | null,
    status: 'running' as string,
    code: null as number | null,
    usage: null as Usage | null,
  };
}

export const getOr = <K, V>(map: Map<K, V>, key: K, make: () => V): V => map.get(key) ?? map.set(key, make()).get(key)!;

export const pushTo = <K, V>(map: Map<K, V[]>, key: K, value: V): number => getOr(map, key, () => []).push(value);
