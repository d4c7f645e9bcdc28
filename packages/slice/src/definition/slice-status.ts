// Where a slice stands, from its lock and records; a record missing or unreadable (a crash mid-write) is said.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { ROUND_RECORD, orElse, slicePaths } from '@leap/core';
import { liveEngine } from '../slice-lock.js';
import type { Receipt, Slice } from './slice-schema.js';

type BallState = 'passed' | 'refused' | 'held' | 'running' | 'interrupted' | 'blocked' | 'waiting' | 'pending';

/** `lastRound.receipt` null: its proof failed and the next round follows; `after`: what a blocked ball waits on. */
export type BallStatus = {
  ball: string;
  state: BallState;
  receipt: Receipt | null;
  reason: string | null;
  rounds: number;
  lastRound: ({ round: number } & ReturnType<typeof lastRoundOf>) | null;
  candidate: string | null;
  merged: string | null;
  checkpoint: string | null;
  after: string[];
};

function readRecord(file: string, unreadable: string[], label: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    unreadable.push(`${label}: expected a JSON object`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') unreadable.push(`${label}: ${(error as Error).message}`);
  }
  return null;
}

const asReceipt = (value: unknown): Receipt | null => (value === -1 || value === 0 || value === 1 ? value : null);
const asString = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function roundNumbers(dir: string): number[] {
  const numbers = orElse(() => readdirSync(dir), []).flatMap((n) => ROUND_RECORD.exec(n)?.[1] ?? []);
  return numbers.map(Number).sort((a, b) => a - b);
}

export function sliceStatus(repoRoot: string, slice: Slice) {
  const paths = slicePaths(repoRoot, slice.id);
  const rel = (file: string) => relative(repoRoot, file);
  const unreadable: string[] = [];
  const read = (file: string) => readRecord(file, unreadable, rel(file));
  const run = read(paths.run);
  const engine = liveEngine(repoRoot, slice.id);
  const own = new Map<string, BallStatus>();
  const blockedBy = new Map<string, string[]>();
  for (const ball of slice.balls) {
    const result = read(paths.result(ball.id));
    const rounds = roundNumbers(paths.ball(ball.id));
    const last = rounds.at(-1);
    const lastRecord = last === undefined ? null : read(paths.round(ball.id, last));
    const receipt = result === null ? null : asReceipt(result.receipt);
    // The engine gives a ball it never built, because a dependency refused or held, a result naming them.
    const on = Array.isArray(result?.blockedBy) ? result.blockedBy : [];
    const named: string[] = on.filter((b) => typeof b === 'string');
    if (on.length > 0) blockedBy.set(ball.id, named);
    // A held ball with a round past its result's is being built again by the live engine.
    const again = engine !== null && last !== undefined && typeof result?.rounds === 'number' && last > result.rounds;
    const building = rounds.length === 0 ? 'pending' : engine === null ? 'interrupted' : 'running';
    const state = receipt === 1 ? 'passed' : receipt === -1 ? 'refused' : receipt === 0 && !again ? 'held' : building;
    own.set(ball.id, {
      ball: ball.id,
      state,
      receipt,
      reason: asString(result?.reason),
      rounds: rounds.length,
      lastRound: last === undefined ? null : { round: last, ...lastRoundOf(lastRecord) },
      candidate: asString(result?.candidate) ?? asString(lastRecord?.candidate),
      merged: asString(result?.merged),
      checkpoint: existsSync(paths.checkpoint(ball.id)) ? rel(paths.checkpoint(ball.id)) : null,
      after: [],
    });
  }
  // A ball not yet started is blocked by a refused ancestor, or waits on one that has not passed.
  const byId = new Map(slice.balls.map((b) => [b.id, b]));
  const ancestors = (id: string, seen = new Set<string>()): Set<string> => {
    for (const dep of byId.get(id)?.deps ?? []) if (!seen.has(dep)) ancestors(dep, seen.add(dep));
    return seen;
  };
  const refusedChain = (id: string, seen = new Set<string>()): boolean => {
    if (seen.has(id)) return false;
    seen.add(id);
    return own.get(id)?.state === 'refused' || (blockedBy.get(id) ?? []).some((b) => refusedChain(b, seen));
  };
  for (const [id, on] of blockedBy) {
    const status = own.get(id) as BallStatus;
    if (status.state === 'held' || status.state === 'refused')
      Object.assign(status, { state: refusedChain(id) ? 'blocked' : 'held', after: on });
  }
  for (const status of own.values()) {
    if (status.state !== 'pending') continue;
    const up = [...ancestors(status.ball)];
    const notPassed = up.filter((a) => own.get(a)?.state !== 'passed');
    if (up.some((a) => own.get(a)?.state === 'refused' || own.get(a)?.state === 'blocked'))
      Object.assign(status, { state: 'blocked', after: up.filter((a) => own.get(a)?.state === 'refused') });
    else if (notPassed.length > 0) Object.assign(status, { state: 'waiting', after: notPassed });
  }
  const record = existsSync(paths.record) ? rel(paths.record) : null;
  const balls = slice.balls.map((b) => own.get(b.id) as BallStatus);
  return { slice: slice.id, base: asString(run?.base), engine, record, balls, unreadable };
}

export function passedBalls(repoRoot: string, slice: Slice): Set<string> {
  const paths = slicePaths(repoRoot, slice.id);
  return new Set(slice.balls.filter((b) => readRecord(paths.result(b.id), [], '')?.receipt === 1).map((b) => b.id));
}

type Said = { receipt: Receipt | null; reason: string | null };

// A round's receipt and reason, its fall-overs (builders whose vendor ran dry on it) and who built it after them.
function lastRoundOf(record: Record<string, unknown> | null): { fallovers?: string[]; builder?: string } & Said {
  const said: Said = { receipt: asReceipt(record?.receipt), reason: asString(record?.reason) };
  const list = Array.isArray(record?.fallovers) ? record.fallovers : [];
  const fallovers = list.flatMap((f) => {
    const { agent, cause } = (f ?? {}) as Record<string, unknown>;
    return typeof agent === 'string' && typeof cause === 'string' ? [`${agent} ${cause}`] : [];
  });
  if (fallovers.length === 0) return said;
  const builder = asString((record?.builder as Record<string, unknown> | undefined)?.agent);
  return { ...said, fallovers, ...(builder === null ? {} : { builder }) };
}
