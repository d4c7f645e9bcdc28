// The test command sandboxed as a writer of its tree, supervised as a leaf is, recorded as a `suite` event.
import { closeSync, copyFileSync, existsSync, fstatSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { writeFileSync, writeSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LeapError, appendEvent, createEvent, ensureStateDir, envIssue, formatSeconds, orElse } from '@leap/core';
import { processIdentity, readDurationVar, readEventContext, readTail, readTimeLimit } from '@leap/core';
import { runGitSync, statePaths, writeFd } from '@leap/core';
import { DEFAULT_KILL_AFTER_MS, armLifeline, formatPidRecord, newRunId, prepareSandbox } from '@leap/supervise';
import { runLeaf, spawnLeaf, type PreparedSandbox } from '@leap/supervise';
import type { GroundTruthOptions as Truth } from './ground-truth.js';
import { suiteSandbox } from './leaf-sandbox.js';
import type { Phase } from './verify-prompt.js';
import { topLevelName } from './scratch-tree.js';
import { lastWords } from './test-report.js';

type Suite = Pick<Truth, 'testCmd' | 'env' | 'suiteLog'> & Partial<Pick<Truth, 'stateDir' | 'sandbox'>>;
export type SuiteOptions = Suite & { phase?: Phase | 'baseline'; purpose?: 'canary' | 'rerun' };
export type SuiteLimit = 'timeout' | 'idle';

export class SuiteLimitError extends LeapError {
  constructor(
    readonly command: string,
    readonly limit: SuiteLimit,
    readonly limitMs: number,
    readonly source: string,
    readonly lastLine: string | null,
  ) {
    const what =
      limit === 'timeout'
        ? `its time limit (${formatSeconds(limitMs)}, ${source})`
        : `its idle limit (${formatSeconds(limitMs)} with no output and no CPU, ${source})`;
    const said = lastLine === null ? 'it printed nothing' : `its last output line: ${JSON.stringify(lastLine)}`;
    super(`the test command \`${command}\` did not end: it was ended by ${what}; ${said}`, { exitCode: 2 });
  }
}

function suiteLimits(env: NodeJS.ProcessEnv, stateDir: string | undefined) {
  const own = readDurationVar(env, 'VERI_SUITE_TIMEOUT', -1);
  const time =
    own >= 0 ? { ms: own, source: 'VERI_SUITE_TIMEOUT' } : readTimeLimit(stateDir ?? null, envIssue(env), env);
  return {
    timeoutMs: time.ms,
    timeoutSource: time.source === 'default' ? 'the default' : time.source,
    idleMs: readDurationVar(env, 'VERI_IDLE_TIMEOUT', 0),
    killAfterMs: readDurationVar(env, 'VERI_KILL_AFTER', DEFAULT_KILL_AFTER_MS),
  };
}

/** Exit code (signal: 128+N) or a SuiteLimitError; with `stateDir`, a `suite` event (CONTRACT sections 9, 13). */
export async function runSuite(options: SuiteOptions, cwd: string): Promise<number> {
  const limits = suiteLimits(options.env, options.stateDir);
  const out = options.suiteLog === undefined ? 2 : openSync(options.suiteLog, 'a');
  const line = `leap-verify: ground truth: running VERI_TEST_CMD in ${cwd}\n`;
  if (out === 2) writeFd(2, line);
  else writeSync(out, line);
  const stat = orElse(() => fstatSync(out), null);
  const from = stat?.isFile() ? stat.size : null; // where the suite's output starts; a pipe cannot be read back
  const tree = options.stateDir === undefined ? null : workTreeHash(cwd, options.stateDir);
  const started = Date.now();
  // Every process of the suite carries the marker, so one that leaves its session is found and ended too.
  const marker = `LEAP_LEAF_${newRunId()}`;
  const env = { ...options.env, [marker]: '1' };
  let sandbox: PreparedSandbox | null = null;
  let ended: { code: number; limit: SuiteLimit | null };
  try {
    const bwrap = options.sandbox?.bwrap ?? null;
    const args = ['-c', options.testCmd];
    const spec = suiteSandbox(cwd, options.stateDir, options.sandbox?.testNetwork === true);
    if (bwrap !== null) sandbox = prepareSandbox(spec, 'bash', args, env, bwrap);
    const run = sandbox ?? { command: 'bash', args, env };
    const sandboxed = sandbox !== null;
    ended = await followSuite({ ...run, cwd, out, limits, marker, sandboxed, stateDir: options.stateDir });
  } finally {
    sandbox?.cleanup();
    if (out !== 2) closeSync(out);
  }
  const { code, limit } = ended;
  if (options.stateDir !== undefined) {
    const context = readEventContext(options.stateDir, options.env);
    const phase = options.phase ?? null;
    const fields = { tree, command: options.testCmd, code, duration_ms: Date.now() - started, phase };
    const purpose = options.purpose === undefined ? {} : { purpose: options.purpose };
    const event = createEvent('suite', { ...fields, ...purpose, ...(limit === null ? {} : { limit }) }, context);
    appendEvent(statePaths(options.stateDir).events, event);
  }
  if (limit === null) return code;
  const lastLine = from === null ? null : lastWords(readTail(options.suiteLog ?? '/dev/stderr', 65536, from), 300);
  const [ms, source] =
    limit === 'timeout' ? [limits.timeoutMs, limits.timeoutSource] : [limits.idleMs, 'VERI_IDLE_TIMEOUT'];
  throw new SuiteLimitError(options.testCmd, limit, ms, source, lastLine);
}

type Run = Pick<PreparedSandbox, 'command' | 'args' | 'env'> & { cwd: string; out: number; marker: string };
type Follow = Run & { limits: ReturnType<typeof suiteLimits>; sandboxed: boolean; stateDir: string | undefined };

// A pid file names us the suite's supervisor: if we die, the lifeline ends it as a leaf's (leap-stop orphans).
async function followSuite(f: Follow): Promise<{ code: number; limit: SuiteLimit | null }> {
  const me = processIdentity();
  const run = f.marker.slice('LEAP_LEAF_'.length);
  const pidFile = f.stateDir === undefined ? null : join(ensureStateDir(f.stateDir), `suite-${run}.pid`);
  const record = (leaf?: number) => {
    const pidRecord = { pid: process.pid, starttime: me?.starttime, bootId: me?.bootId, run, leaf };
    if (pidFile !== null) writeFileSync(pidFile, formatPidRecord(pidRecord));
  };
  const release = f.stateDir === undefined ? null : armLifeline(f.stateDir);
  const stdin = openSync('/dev/null', 'r');
  try {
    record();
    let spawned: Awaited<ReturnType<typeof spawnLeaf>>;
    try {
      spawned = await spawnLeaf(f.command, f.args, f.env, f.cwd, { stdin, stdout: f.out, stderr: f.out });
    } finally {
      closeSync(stdin);
    }
    if (spawned.kind === 'failed') return { code: spawned.code, limit: null };
    record(spawned.pid);
    const { timeoutMs, killAfterMs, idleMs } = f.limits;
    const { child, pid } = spawned;
    const notBefore = Number(me?.starttime ?? 0);
    const leaf = { child, pid, notBefore, marker: f.marker, stopFile: null, timeoutMs, killAfterMs, idleMs };
    const outcome = await runLeaf({ ...leaf, sandboxed: f.sandboxed }).outcome;
    const code =
      outcome.leafCode ?? 128 + (outcome.signal === null ? 0 : constants.signals[outcome.signal as NodeJS.Signals]);
    return { code, limit: outcome.reason === 'timeout' ? 'timeout' : outcome.reason === 'stuck' ? 'idle' : null };
  } finally {
    if (pidFile !== null) rmSync(pidFile, { force: true });
    release?.();
  }
}

/** Through a copy of the index (its stat data spares hashing), never the repository's own; null: git cannot say. */
export function workTreeHash(cwd: string, stateDir: string): string | null {
  const scratch = mkdtempSync(join(tmpdir(), 'leap-suite-index-'));
  try {
    const index = join(scratch, 'index');
    const own = runGitSync(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd, allowFailure: true });
    if (own.code !== 0) return null;
    if (existsSync(own.stdout.trim())) copyFileSync(own.stdout.trim(), index);
    const git = (args: string[]) => runGitSync(args, { cwd, extraEnv: { GIT_INDEX_FILE: index }, allowFailure: true });
    if (git(['add', '-A', '--', '.']).code !== 0) return null;
    // The state folder is taken out after: a pathspec naming an ignored folder makes `git add` fail.
    const state = topLevelName(cwd, stateDir);
    const untrack = ['rm', '-r', '--cached', '--quiet', '--ignore-unmatch', '--', state ?? ''];
    if (state !== null && git(untrack).code !== 0) return null;
    const written = git(['write-tree']);
    return written.code === 0 ? written.stdout.trim() : null;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
