// A ball's proofs: argv without a shell, a supervised leaf (@leap/supervise) of the main repository's state folder.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { constants } from 'node:os';
import { DEFAULT_IDLE_TIMEOUT_S, formatSeconds, readDurationVar, statePaths, orElse } from '@leap/core';
import { supervise, type SandboxSpec } from '@leap/supervise';
import type { LiveProof, MetricField, Proof } from '../definition/slice-schema.js';
import { cannotRun, causeLines, interrupted, type ProofEnd } from './cannot-run.js';
import type { LiveEvidence, ProofRun } from './records.js';

export interface ProofPlace {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stateDir: string;
  name: string;
  /** The time limit and the idle limit (no output, no CPU), in ms; 0 is none. */
  timeoutMs: number;
  idleMs: number;
  sandbox: SandboxSpec | null;
  /** The dependencies linked into the checkout and where they lead: an error on them is no test's (cannot-run.ts). */
  theirs?: readonly string[];
}

/** VERI_IDLE_TIMEOUT, else `leap tdd run`'s 300 s: a runner left in watch mode ends there; malformed: a UsageError. */
export function proofIdleLimit(env: NodeJS.ProcessEnv): number {
  return readDurationVar(env, 'VERI_IDLE_TIMEOUT', DEFAULT_IDLE_TIMEOUT_S * 1000);
}

/** The leaves of a round's proofs: the champion (once an episode), the proof, the re-proof, the live proof. */
export function proofLeaves(ball: string, round: number) {
  const n = `${ball}-${round}`;
  return { champion: `champion-${ball}`, proof: `proof-${n}`, reproof: `reproof-${n}`, live: `live-${n}` };
}

type Ran = { end: ProofEnd; ms: number; out: string; err: string; bytes: number };

// How much of each stream is read back: the whole of it up to twice this, else its head and its tail.
const READ_BYTES = 4 * 1024 * 1024;

function readOutput(file: string): { text: string; bytes: number } {
  const fd = orElse(() => openSync(file, 'r'), null);
  if (fd === null) return { text: '', bytes: 0 };
  try {
    const size = fstatSync(fd).size;
    const read = (at: number, n: number) => {
      const buffer = Buffer.alloc(n);
      let got = 0;
      while (got < n) {
        const k = readSync(fd, buffer, got, n - got, at + got);
        if (k === 0) break;
        got += k;
      }
      return buffer.subarray(0, got).toString('utf8');
    };
    const text =
      size <= 2 * READ_BYTES ? read(0, size) : `${read(0, READ_BYTES)}\n[...]\n${read(size - READ_BYTES, READ_BYTES)}`;
    return { text, bytes: size };
  } finally {
    closeSync(fd);
  }
}

async function superviseRun(argv: readonly string[], place: ProofPlace): Promise<Ran> {
  const [command, ...args] = argv as [string, ...string[]];
  const paths = statePaths(place.stateDir);
  const limits = { timeoutMs: place.timeoutMs, idleMs: place.idleMs };
  const limitsEnv = { VERI_TIMEOUT: formatSeconds(place.timeoutMs), VERI_IDLE_TIMEOUT: formatSeconds(place.idleMs) };
  const env = { ...place.env, VERI_STATE_DIR: place.stateDir, ...limitsEnv };
  try {
    const io = { input: '', stdoutFile: paths.out(place.name), stderrFile: paths.err(place.name) };
    const at = { name: place.name, cwd: place.cwd, sandbox: place.sandbox };
    const run = await supervise({ ...at, command, args, env, handleSignals: true, io });
    const [out, err] = [readOutput(paths.out(place.name)), readOutput(paths.err(place.name))];
    // The leaf's own exit; the supervisor's code when it could not start it; 128+N for a signal that ended it.
    const signo = run.signal === null ? undefined : constants.signals[run.signal as NodeJS.Signals];
    const killed = run.status !== 'exited' && run.status !== 'failed-start' && signo !== undefined;
    const code = run.status === 'exited' ? (run.leafCode ?? run.code) : killed ? 128 + signo : run.code;
    const end = { status: run.status, code, signal: run.signal, error: run.error, ...limits };
    return { end, ms: run.durationMs, out: out.text, err: err.text, bytes: out.bytes + err.bytes };
  } catch (error) {
    // Refused before it could start (a live supervisor holds the name, the state folder is unusable).
    const failed = { status: 'failed-start' as const, code: 125, signal: null, error: (error as Error).message };
    return { end: { ...failed, ...limits }, ms: 0, out: '', err: '', bytes: 0 };
  }
}

/** A proof's run: its record, why it could not run (null: it ran), and the lines of its output a reason keeps. */
export type ProofOutcome = ProofRun & { cannotRun: string | null; interrupted: boolean; lines: string };

function recordedCode(end: ProofEnd): number {
  return end.status === 'killed-timeout' || end.status === 'killed-stuck' ? 124 : end.code;
}

/** Run the proof in `place`; never throws. */
export async function runProof(proof: Proof, place: ProofPlace): Promise<ProofOutcome> {
  const ran = await superviseRun(proof.argv, place);
  const theirs = place.theirs ?? [];
  const why = cannotRun(ran.end, ran.out, ran.err, theirs);
  const lines = causeLines(ran.out, ran.err, why ?? '', theirs);
  const ended = { cannotRun: why, interrupted: interrupted(ran.end.status), lines };
  const base = { code: recordedCode(ran.end), ms: ran.ms, ...ended };
  if (why !== null) return { ...base, metric: null, note: `the proof could not run: ${why}` };
  const read = proof.metric === undefined ? { metric: null } : readMetric(ran.out, proof.metric);
  return { ...base, metric: read.metric, ...(read.note === undefined ? {} : { note: read.note }) };
}

type MetricRead = { metric: Record<string, number> | null; note?: string };
/** The metric: the last non-empty stdout line as a JSON object holding every declared field as a number. */
export function readMetric(stdout: string, fields: readonly MetricField[]): MetricRead {
  const last = stdout
    .split('\n')
    .findLast((l) => l.trim() !== '')
    ?.trim();
  if (last === undefined) return { metric: null, note: 'the proof printed no metric line' };
  let value: unknown;
  try {
    value = JSON.parse(last);
  } catch {
    return { metric: null, note: `the proof's last line is not JSON: ${JSON.stringify(last.slice(0, 200))}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { metric: null, note: "the proof's last line is not a JSON object" };
  const metric: Record<string, number> = {};
  for (const { field } of fields) {
    const n = (value as Record<string, unknown>)[field];
    if (typeof n !== 'number' || !Number.isFinite(n))
      return { metric: null, note: `the proof's metric has no number "${field}"` };
    metric[field] = n;
  }
  return { metric };
}

export function proofPassed(run: ProofRun, proof: Proof): boolean {
  return run.code === 0 && (proof.metric === undefined || run.metric !== null);
}

const LIVE_KEEP_BYTES = 16 * 1024;

/** The live proof's evidence, `output` its first LIVE_KEEP_BYTES; `cannotRun` null: it ran, its exit its verdict. */
export type LiveRun = LiveEvidence & { lines: string; cannotRun: string | null };

/** Whatever it started (a background server, one that left its session) ends with it, as every leaf's tree does. */
export async function runLive(live: LiveProof, place: Omit<ProofPlace, 'timeoutMs'>): Promise<LiveRun> {
  const ran = await superviseRun(live.argv, { ...place, timeoutMs: Math.ceil(live.timeout_s * 1000) });
  const body = Buffer.from(ran.out + ran.err).subarray(0, LIVE_KEEP_BYTES);
  const theirs = place.theirs ?? [];
  const why = cannotRun(ran.end, ran.out, ran.err, theirs);
  const late = `the live proof ran past ${live.timeout_s} s and was killed`;
  const note =
    why === null ? undefined : ran.end.status === 'killed-timeout' ? late : `the live proof could not run: ${why}`;
  const hashed = { code: recordedCode(ran.end), ms: ran.ms, sha256: createHash('sha256').update(body).digest('hex') };
  const kept = { bytes: ran.bytes, truncated: ran.bytes > body.length, output: body.toString('utf8') };
  const lines = causeLines(ran.out, ran.err, why ?? '', theirs);
  return { ...hashed, ...kept, ...(note === undefined ? {} : { note }), lines, cannotRun: why };
}
