// A ball's proofs: argv without a shell, a supervised leaf (@leap/supervise) of the main repository's state folder.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { constants } from 'node:os';
import { stripVTControlCharacters } from 'node:util';
import { DEFAULT_IDLE_TIMEOUT_S, formatSeconds, readDurationVar, statePaths, orElse, showText } from '@leap/core';
import type { ExitStatus } from '@leap/core';
import { supervise, type SandboxSpec } from '@leap/supervise';
import type { LiveProof, MetricField, Proof } from '../definition/slice-schema.js';
import type { ProofRun } from './records.js';

export interface ProofPlace {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stateDir: string;
  name: string;
  /** The time limit and the idle limit (no output, no CPU), in ms; 0 is none. */
  timeoutMs: number;
  idleMs: number;
  sandbox: SandboxSpec | null;
  /** The dependencies linked into the checkout and where they lead: an error on them is no test's (cannotRun). */
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
      return buffer.subarray(0, readSync(fd, buffer, 0, n, at)).toString('utf8');
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

/** Its recorded code, why it could not run (null: it ran) and the lines of its output a reason keeps. */
async function runLeaf(argv: readonly string[], place: ProofPlace) {
  const ran = await superviseRun(argv, place);
  const theirs = place.theirs ?? [];
  const why = cannotRun(ran.end, ran.out, ran.err, theirs);
  const code = ran.end.status === 'killed-timeout' || ran.end.status === 'killed-stuck' ? 124 : ran.end.code;
  return { ran, why, code, lines: causeLines(ran.out, ran.err, why ?? '', theirs) };
}

/** Run the proof in `place`; never throws. */
export async function runProof(proof: Proof, place: ProofPlace) {
  const { ran, why, code, lines } = await runLeaf(proof.argv, place);
  const base = { code, ms: ran.ms, cannotRun: why, interrupted: interrupted(ran.end.status), lines };
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

/** `output`: its first LIVE_KEEP_BYTES; whatever it started (a background server) ends with it, as every leaf's. */
export async function runLive(live: LiveProof, place: Omit<ProofPlace, 'timeoutMs'>) {
  const timeoutMs = Math.ceil(live.timeout_s * 1000);
  const { ran, why, code, lines } = await runLeaf(live.argv, { ...place, timeoutMs });
  const body = Buffer.from(ran.out + ran.err).subarray(0, LIVE_KEEP_BYTES);
  const late = `the live proof ran past ${live.timeout_s} s and was killed`;
  const note =
    why === null ? undefined : ran.end.status === 'killed-timeout' ? late : `the live proof could not run: ${why}`;
  const hashed = { code, ms: ran.ms, sha256: createHash('sha256').update(body).digest('hex') };
  const kept = { bytes: ran.bytes, truncated: ran.bytes > body.length, output: body.toString('utf8') };
  return { ...hashed, ...kept, ...(note === undefined ? {} : { note }), lines, cannotRun: why };
}

// Keep-or-revert (blind-eval): the candidate must strictly beat the champion, the proof at the ball's start.
/** The metric's first differing field decides; a tie loses (no uplift), as does a passing start with no metric. */
export function keepOrRevert(proof: Proof, champion: ProofRun, candidate: ProofRun) {
  const beats = (why: string) => ({ keep: true, reason: `beats the champion${why}` });
  const loses = (why: string) => ({ keep: false, reason: `loses to the champion: ${why}` });
  if (!proofPassed(champion, proof))
    return beats(`: the proof fails at the start (exit ${champion.code}) and passes now`);
  const fields = proof.metric ?? [];
  if (fields.length === 0) return loses('a tie (the proof already passes at the start and no metric is declared)');
  for (const { field, better } of fields) {
    const was = champion.metric?.[field] as number;
    const now = candidate.metric?.[field] as number;
    if (now === was) continue;
    const change = `${field} (${was} -> ${now}, ${better} is better)`;
    return (better === 'higher' ? now > was : now < was) ? beats(` on ${change}`) : loses(`a regression on ${change}`);
  }
  return loses(`a tie on ${fields.map((f) => f.field).join(', ')}`);
}

// A failed proof is red unless the supervisor's status, then a line only the environment prints, says it could not run.
interface ProofEnd {
  status: ExitStatus;
  code: number;
  signal: string | null;
  error: string | null;
  timeoutMs: number;
  idleMs: number;
}

// Lines no test prints of its own failure: the system or the sandbox refusing a write, bwrap, a runner missing.
const CANNOT_RUN: readonly RegExp[] = [
  /\bEROFS\b|read-only file system/i,
  /\bENOSPC\b|no space left on device/i,
  /^bwrap: /,
  /^npm (?:ERR!|error) code E(?!LIFECYCLE)[A-Z0-9_]+/,
  /^\S*python[0-9.]*: No module named /,
  /^\S*(?:sh|bash|dash|zsh)(?:: line \d+)?: (?:\d+: )?\S+: (?:command )?not found$/,
];

const FS_ERROR = new RegExp(
  /\bE(?:NOENT|NOTDIR|ACCES|PERM)\b|/.source +
    /no such file or directory|permission denied|not a directory|operation not permitted/.source,
  'i',
);
const QUOTED_PATH = /['"`](\/[^'"`]+)['"`]/g;
const inside = (path: string, place: string) => path === place || path.startsWith(`${place}/`);
const onTheirs = (line: string, theirs: readonly string[]) =>
  [...line.matchAll(QUOTED_PATH)].some((m) => theirs.some((p) => inside(m[1] as string, p)));

// Each line trimmed, its colours dropped and its other controls escaped: a reason is one line of plain text.
const lines = (text: string) =>
  stripVTControlCharacters(text)
    .split('\n')
    .map((l) => showText(l.trim()))
    .filter((l) => l !== '');

/** `theirs`: linked dependencies, not the ball's (Node's mkdir says ENOENT where the sandbox made them read-only). */
function cannotRunLine(out: string, err: string, theirs: readonly string[]): string | null {
  for (const line of [...lines(err), ...lines(out)]) {
    if (CANNOT_RUN.some((re) => re.test(line))) return line;
    if (FS_ERROR.test(line) && onTheirs(line, theirs)) return line;
  }
  return null;
}

const WATCH = 'a test runner in watch mode waits for changes (use its run form: `vitest run`, `jest` without --watch)';

const signalName = (n: number) => Object.entries(constants.signals).find(([, v]) => v === n)?.[0] ?? `signal ${n}`;

/** Why the proof could not run, in a phrase; null: it ran, and its exit is its tests' verdict. */
function cannotRun(end: ProofEnd, out: string, err: string, theirs: readonly string[] = []): string | null {
  const line = cannotRunLine(out, err, theirs);
  const said = line === null ? '' : ` (${line})`;
  switch (end.status) {
    case 'failed-start':
      return end.error ?? (end.code === 127 ? 'its program was not found' : 'its program cannot be executed');
    case 'killed-timeout':
      return `it ran past its time limit (${formatSeconds(end.timeoutMs)}) and was ended`;
    case 'killed-stuck':
      return `it made no progress (no output, no CPU) for ${formatSeconds(end.idleMs)} and was ended: ${WATCH}`;
    case 'killed-external':
      return `it was ended by ${end.signal ?? 'a signal'} (a crash, or a kill from outside the run)`;
    case 'exited':
      if (end.code === 127) return `a program it runs was not found${said}`;
      if (end.code === 126) return `a program it runs cannot be executed${said}`;
      if (end.code > 128 && end.code < 160) return `it was killed by ${signalName(end.code - 128)}${said}`;
      return end.code === 0 ? null : line;
    default:
      return 'it was interrupted: the run was asked to stop';
  }
}

const interrupted = (status: ExitStatus) => ['killed-signal', 'killed-stop', 'refused-stop'].includes(status);

const LINE_CHARS = 240;
const ERROR_LINE = new RegExp(
  /\b(?:error|fail(?:ed|ure|s)?|exception|panic(?:ked)?|traceback|assert(?:ion)?|denied|cannot|unable)\b/.source +
    /|\bE[A-Z]{3,}\b|not found/.source,
  'i',
);

/** The output lines a reason quotes: the cannot-run line, error lines, each stream's last two; none `said` holds. */
export function causeLines(out: string, err: string, said = '', theirs: readonly string[] = []): string {
  const [o, e] = [lines(out), lines(err)];
  const kept = new Set<string>();
  const cause = cannotRunLine(out, err, theirs);
  if (cause !== null) kept.add(cause);
  for (const line of [...e, ...o]) {
    if (kept.size >= 3) break;
    if (ERROR_LINE.test(line)) kept.add(line);
  }
  for (const line of [...o.slice(-2), ...e.slice(-2)]) kept.add(line);
  return [...kept]
    .filter((l) => !said.includes(l))
    .map((l) => (l.length > LINE_CHARS ? `${l.slice(0, LINE_CHARS)}...` : l))
    .join(' | ');
}
