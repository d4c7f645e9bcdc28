// The ball's proof: its argv run without a shell in the ball's checkout, and the metric its last stdout line gives.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { LeafTree, killTree, monitorTree, prepareSandbox, type SandboxSpec } from '@leap/supervise';
import { processIdentity } from '@leap/core';
import { createHash, randomBytes } from 'node:crypto';
import type { LiveProof, MetricField, Proof } from '../definition/slice-schema.js';
import type { ProofRun } from './records.js';

const KEEP_BYTES = 64 * 1024;

/** A proof's sandbox (CONTRACT section 13): bwrap's path and the spec (a writer of the ball's checkout), or null: none. */
export type ProofSandbox = { bwrap: string; spec: SandboxSpec } | null;

// The proof's process: argv with no shell in its own process group, inside the sandbox when one is given.
function spawnProof(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv, sandbox: ProofSandbox): { child: ChildProcessWithoutNullStreams; cleanup: () => void } {
  const [command, ...args] = argv as [string, ...string[]];
  const prepared = sandbox === null ? null : prepareSandbox(sandbox.spec, command, args, env, sandbox.bwrap);
  const child =
    prepared === null
      ? spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
      : spawn(prepared.command, prepared.args, { cwd, env: prepared.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  return { child: child as unknown as ChildProcessWithoutNullStreams, cleanup: () => prepared?.cleanup() };
}

/** Run the proof in `cwd` (its own process group, killed whole at `timeoutMs`); never throws. */
export function runProof(proof: Proof, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number, sandbox: ProofSandbox = null): Promise<ProofRun & { tail: string }> {
  const started = Date.now();
  return new Promise((resolve) => {
    let spawned: ReturnType<typeof spawnProof>;
    try {
      spawned = spawnProof(proof.argv, cwd, env, sandbox);
    } catch (error) {
      return resolve({ code: 126, metric: null, ms: Date.now() - started, note: `the proof could not start: ${(error as Error).message}`, tail: '' });
    }
    const { child, cleanup } = spawned;
    let out = '';
    let err = '';
    const keep = (text: string, more: Buffer) => (text + more.toString('utf8')).slice(-KEEP_BYTES);
    child.stdout.on('data', (b: Buffer) => {
      out = keep(out, b);
    });
    child.stderr.on('data', (b: Buffer) => {
      err = keep(err, b);
    });
    let timedOut = false;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            try {
              process.kill(-(child.pid as number), 'SIGKILL');
            } catch {
              /* already gone */
            }
          }, timeoutMs)
        : undefined;
    const finish = (code: number, note?: string) => {
      if (timer !== undefined) clearTimeout(timer);
      cleanup();
      const ms = Date.now() - started;
      const tail = `${out.slice(-2000)}${err === '' ? '' : `\n[stderr]\n${err.slice(-2000)}`}`;
      if (note !== undefined) return resolve({ code, metric: null, ms, note, tail });
      const read = proof.metric === undefined ? { metric: null } : readMetric(out, proof.metric);
      resolve({ code, metric: read.metric, ms, ...(read.note === undefined ? {} : { note: read.note }), tail });
    };
    child.on('error', (error) => finish((error as NodeJS.ErrnoException).code === 'ENOENT' ? 127 : 126, `the proof could not start: ${error.message}`));
    child.on('close', (code, signal) => {
      if (timedOut) return finish(124, `the proof ran past ${timeoutMs} ms and was killed`);
      finish(code ?? 128, signal === null ? undefined : `the proof was killed by ${signal}`);
    });
  });
}

/** The metric: the last non-empty stdout line as a JSON object holding every declared field as a number. */
export function readMetric(stdout: string, fields: readonly MetricField[]): { metric: Record<string, number> | null; note?: string } {
  const last = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .at(-1);
  if (last === undefined) return { metric: null, note: 'the proof printed no metric line' };
  let value: unknown;
  try {
    value = JSON.parse(last);
  } catch {
    return { metric: null, note: `the proof's last line is not JSON: ${JSON.stringify(last.slice(0, 200))}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { metric: null, note: "the proof's last line is not a JSON object" };
  const metric: Record<string, number> = {};
  for (const { field } of fields) {
    const n = (value as Record<string, unknown>)[field];
    if (typeof n !== 'number' || !Number.isFinite(n)) return { metric: null, note: `the proof's metric has no number "${field}"` };
    metric[field] = n;
  }
  return { metric };
}

/** Whether a proof run is evidence of success: exit 0, and the metric read when one is declared. */
export function proofPassed(run: ProofRun, proof: Proof): boolean {
  return run.code === 0 && (proof.metric === undefined || run.metric !== null);
}

/** How much of a live proof's output (stdout and stderr, as they came) is kept as its evidence. */
const LIVE_KEEP_BYTES = 16 * 1024;

/** A live proof's run: its exit, and its output kept (bounded) and hashed as the receipt's live evidence. */
export interface LiveRun {
  code: number;
  ms: number;
  /** The first LIVE_KEEP_BYTES of the output, as UTF-8 text. */
  output: string;
  /** sha256 of the kept output's bytes. */
  sha256: string;
  /** Every byte it printed, kept or not. */
  bytes: number;
  truncated: boolean;
  note?: string;
}

/**
 * Run a ball's `live` proof in `cwd`: no shell, its own process group, killed whole at `timeoutMs` and
 * again when it ends (a server it started in the background ends with it); never throws.
 */
export function runLive(live: LiveProof, cwd: string, env: NodeJS.ProcessEnv, sandbox: ProofSandbox = null): Promise<LiveRun> {
  const started = Date.now();
  const timeoutMs = Math.ceil(live.timeout_s * 1000);
  return new Promise((resolve) => {
    const kept: Buffer[] = [];
    let size = 0;
    let bytes = 0;
    const take = (b: Buffer) => {
      bytes += b.length;
      if (size >= LIVE_KEEP_BYTES) return;
      const part = b.subarray(0, LIVE_KEEP_BYTES - size);
      kept.push(part);
      size += part.length;
    };
    // Unsandboxed, a server that leaves the proof's group and session (setsid, a double fork) is still the
    // proof's: every descendant inherits this variable, and the supervisor's tree kill finds them by it and by
    // parentage. Sandboxed, bwrap's pid namespace ends with the proof (--die-with-parent) and takes them all.
    const marker = sandbox === null ? `LEAP_LEAF_${randomBytes(8).toString('hex')}` : null;
    const notBefore = Number(processIdentity()?.starttime ?? 0);
    let spawned: ReturnType<typeof spawnProof>;
    try {
      spawned = spawnProof(live.argv, cwd, marker === null ? env : { ...env, [marker]: '1' }, sandbox);
    } catch (error) {
      const empty = createHash('sha256').digest('hex');
      return resolve({ code: 126, ms: Date.now() - started, output: '', sha256: empty, bytes: 0, truncated: false, note: `the live proof could not start: ${(error as Error).message}` });
    }
    const { child, cleanup } = spawned;
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const tree = marker === null || child.pid === undefined ? null : new LeafTree(child.pid, notBefore, marker);
    const stopMonitor = tree === null ? () => {} : monitorTree(tree, 0, () => {});
    let treeGone: Promise<unknown> = Promise.resolve();
    const killGroup = () => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        /* already gone */
      }
      if (tree === null) return;
      const leader = { pid: child.pid as number, exited: () => exited !== null, kill: (signal: NodeJS.Signals) => child.kill(signal) };
      treeGone = Promise.all([treeGone, killTree(tree, leader, { graceMs: 0 }).catch(() => undefined)]);
    };
    let timedOut = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
      // Exited already, its pipes held by something outside its group: the evidence is what came.
      if (exited !== null) {
        child.stdout.destroy();
        child.stderr.destroy();
        ended();
      }
    }, timeoutMs);
    let done = false;
    const finish = (code: number, note?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stopMonitor();
      // Resolved once whatever it started is gone too: a daemon that closed its pipes does not hold 'close' back.
      void treeGone.then(() => report(code, note));
    };
    const report = (code: number, note?: string) => {
      cleanup();
      const body = Buffer.concat(kept);
      resolve({
        code,
        ms: Date.now() - started,
        output: body.toString('utf8'),
        sha256: createHash('sha256').update(body).digest('hex'),
        bytes,
        truncated: bytes > body.length,
        ...(note === undefined ? {} : { note }),
      });
    };
    child.on('error', (error) => finish((error as NodeJS.ErrnoException).code === 'ENOENT' ? 127 : 126, `the live proof could not start: ${error.message}`));
    const ended = () => {
      const { code, signal } = exited ?? { code: null, signal: null };
      if (timedOut && exited?.signal === 'SIGKILL') return finish(124, `the live proof ran past ${live.timeout_s} s and was killed`);
      finish(code ?? 128, signal === null ? undefined : `the live proof was killed by ${signal}`);
    };
    // At its exit, its whole group is killed: a server it left in the background holds the pipes open.
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      killGroup();
    });
    child.on('close', ended);
  });
}
