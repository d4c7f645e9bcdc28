// leap-supervise: run one leaf and guarantee it ends, leaving NAME.pid, NAME.exit and the launch/exit events.
import { closeSync } from 'node:fs';
import { LeapError, checkLeafName, createEvent, ensureStateDir, leafRole, processIdentity, orElse } from '@leap/core';
import { envEventContext, readEventContextAnyway, readStopRequest, resolveStateDir, showValue } from '@leap/core';
import { readDurationVar, readRunContext, statePaths, tryLock, unlinkIfPresent } from '@leap/core';
import type { EventContext, Lock, ExitStatus, LeapEvent, StatePaths } from '@leap/core';
import { EXIT_KILLED, EXIT_USAGE, asUsage, usageError } from './exit-codes.js';
import { appendEventSafely, formatPidRecord, newRunId, recordEnd, replaceFile } from './leaf-files.js';
import type { EndDetails, SuperviseResult } from './leaf-files.js';
import { armLifeline } from './lifeline.js';
import { openUnlinked, readStatus, spawnWithIo, type LeafCommand, type SpawnResult } from './spawn-leaf.js';
import type { LeafIo } from './spawn-leaf.js';
import { runLeaf, type RunningLeaf } from './run-leaf.js';
import { READY_FD_VAR, closeReady, reportFailure, reportReady } from './detach.js';
import { nowMs } from './long-timer.js';
import type { SandboxSpec } from './sandbox-plan.js';
import { EXIT_NO_SANDBOX, findBwrap, sandboxFailure, sandboxLeaf } from './sandbox.js';

export interface SuperviseOptions {
  name: string;
  command: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** End the leaf (killed-signal) when this process gets TERM, INT, HUP or QUIT. The bin sets it. */
  handleSignals?: boolean;
  /** leap-detach's handshake pipe (see detach.ts), answered once NAME.pid is written. */
  readyFd?: number | null;
  /** For a supervisor inside another program: the leaf's stdin bytes, and descriptors for its stdout and stderr. */
  io?: LeafIo;
  /** Called just before NAME.exit is written: a waiter on that file finds the bin's status line already printed. */
  beforeRecord?: (result: SuperviseResult) => void;
  /** Ends the leaf with the whole kill sequence, recorded as `killed-stuck` (no progress), never `killed-external`. */
  abort?: AbortSignal;
  /** bwrap missing throws (exit 2) before NAME is touched; refused namespaces are recorded: failed-start, code 2. */
  sandbox?: SandboxSpec | null;
  /** End the leaf however this process dies (lifeline.ts; default on); leap-supervise sets it off. */
  lifeline?: boolean;
}

// SIGUSR1 is Node's (the inspector) and is not handled.
const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'];

/** Throws a UsageError (exit 125) only before NAME is known and locked; after that every failure is recorded. */
export async function supervise(options: SuperviseOptions): Promise<SuperviseResult> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const readyFd = options.readyFd ?? null;
  let name: string;
  let paths: StatePaths;
  let lock: Lock | null;
  let bwrap: string | null = null;
  const run = newRunId();
  try {
    name = asUsage(() => checkLeafName(options.name));
    if (options.sandbox != null) bwrap = findBwrap(env);
    if (options.command === '') throw usageError('Expected a command after NAME, got an empty string');
    paths = asUsage(() => statePaths(resolveStateDir(env, cwd)));
    asUsage(() => ensureStateDir(paths.dir));
    // The lock file is NAME.pid itself, written whole with the run id: no second write before the leaf starts.
    lock = asUsage(() => tryLock(paths.pid(name), { run }));
    if (lock === null) {
      const held = `another supervisor is running leaf ${showValue(name)} (see ${paths.pid(name)})`;
      throw usageError(`${held}; refusing to start a second one`);
    }
  } catch (error) {
    reportFailure(readyFd, (error as Error).message);
    throw error;
  }
  const supervision = new Supervision(name, paths, options, env, cwd, lock.token, run, bwrap);
  const release = options.lifeline === false ? null : armLifeline(paths.dir);
  try {
    return await supervision.start(readyFd);
  } finally {
    release?.();
    // NAME.exit and the exit event are written: NAME.pid goes, so the next run of NAME (in this process too) can start.
    orElse(() => lock.release(), undefined);
  }
}

class Supervision {
  private readonly started = nowMs();
  private get marker(): string {
    return `LEAP_LEAF_${this.run}`;
  }
  private readonly warnings: string[] = [];
  private context: EventContext;
  private leafPid: number | null = null;
  private leaf: RunningLeaf | null = null;
  private pendingSignal: NodeJS.Signals | null = null;
  private readonly onSignal = (signal: NodeJS.Signals): void => {
    this.pendingSignal ??= signal;
    this.leaf?.end('signal');
  };

  constructor(
    private readonly name: string,
    private readonly paths: StatePaths,
    private readonly options: SuperviseOptions,
    private readonly env: NodeJS.ProcessEnv,
    private readonly cwd: string,
    private readonly token: string,
    private readonly run: string,
    private readonly bwrap: string | null,
  ) {
    this.context = envEventContext(env);
  }

  async start(readyFd: number | null): Promise<SuperviseResult> {
    if (this.options.handleSignals === true) for (const s of FORWARDED_SIGNALS) process.on(s, this.onSignal);
    try {
      unlinkIfPresent(this.paths.exit(this.name));
      reportReady(readyFd, process.pid, this.run);
      return await this.launch();
    } catch (error) {
      closeReady(readyFd);
      // Whatever failed, a waiter gets an exit file: the tree is ended first if it was started.
      const message =
        error instanceof LeapError ? error.message : `internal error: ${(error as Error)?.stack ?? String(error)}`;
      if (this.leaf !== null) {
        this.leaf.end('signal');
        const outcome = await this.leaf.outcome.catch(() => null);
        const more = { error: message, leafCode: outcome?.leafCode, signal: outcome?.signal };
        return this.finish('killed-signal', EXIT_KILLED, more);
      }
      return this.finish('failed-start', EXIT_USAGE, { error: message });
    } finally {
      if (this.options.handleSignals === true) for (const s of FORWARDED_SIGNALS) process.off(s, this.onSignal);
    }
  }

  private async launch(): Promise<SuperviseResult> {
    let config: SuperviseConfig;
    try {
      config = readSuperviseConfig(this.paths.dir, this.env);
    } catch (error) {
      this.context = readEventContextAnyway(this.paths.dir, this.env);
      if (error instanceof LeapError) return this.finish('failed-start', EXIT_USAGE, { error: error.message });
      throw error;
    }
    this.context = config.context;
    const stop = readStopRequest(this.paths.stop);
    if (stop.kind === 'requested' && stop.mode !== 'at-ledger') {
      this.event(createEvent('stop', { mode: stop.mode, action: 'honoured', leaf: this.name }, this.context));
      return this.finish('refused-stop', EXIT_KILLED, {});
    }
    if (this.pendingSignal !== null) return this.finish('killed-signal', EXIT_KILLED, {});
    const { command, args = [] } = this.options;
    const spec = this.options.sandbox ?? null;
    const started = { leaf: this.name, ...roleOf(this.name), pid: process.pid, cmd: [command, ...args], run: this.run };
    const network = spec?.network !== false;
    const sandboxed = spec === null ? { sandbox: 'off' } : { sandbox: 'bwrap', sandbox_role: spec.role, network };
    this.event(createEvent('launch', { ...started, timeout_ms: config.timeoutMs, ...sandboxed }, this.context));
    const env = buildLeafEnv(this.env, { ...config, skillCommit: config.context.skillCommit, marker: this.marker });
    const leaf: LeafCommand = { command, args, env, cwd: this.cwd };
    const sandbox = spec === null || this.bwrap === null ? null : sandboxLeaf(spec, this.bwrap, leaf, this.paths.dir);
    if (sandbox === null) return this.spawnAndFollow(leaf, config, false);
    if ('error' in sandbox) return this.finish('failed-start', sandbox.code, { error: sandbox.error });
    try {
      const inside = { command: sandbox.command, args: sandbox.args, env: sandbox.env, cwd: this.cwd };
      return await this.spawnAndFollow(inside, config, true);
    } finally {
      // The reader's copy and every write in it go once the whole tree is gone.
      sandbox.cleanup();
    }
  }

  private async spawnAndFollow(leaf: LeafCommand, config: SuperviseConfig, sandboxed: boolean) {
    let spawned: SpawnResult | null = null;
    // bwrap's report of the leaf's start and exit (its --json-status-fd 3), kept open here until the leaf is gone.
    const statusFd = sandboxed ? openUnlinked(this.paths.dir, 'sandbox-status') : null;
    try {
      spawned = await spawnWithIo(leaf, this.options.io ?? {}, this.paths.dir, statusFd ?? undefined);
    } finally {
      if (statusFd !== null && spawned?.kind !== 'started') closeSync(statusFd);
    }
    if (spawned.kind === 'failed') return this.finish('failed-start', spawned.code, { error: spawned.reason });
    this.leafPid = spawned.pid;
    const me = processIdentity();
    const notBefore = Number(me?.starttime ?? 0);
    const at = { child: spawned.child, pid: spawned.pid, notBefore, marker: this.marker, stopFile: this.paths.stop };
    this.leaf = runLeaf({ ...at, ...config, sandboxed });
    if (this.pendingSignal !== null) this.leaf.end('signal');
    const abort = this.options.abort;
    const onAbort = (): void => this.leaf?.end('stuck');
    if (abort?.aborted === true) onAbort();
    abort?.addEventListener('abort', onAbort, { once: true });
    const record = { pid: process.pid, starttime: me?.starttime, bootId: me?.bootId, run: this.run, leaf: spawned.pid };
    replaceFile(this.paths.pid(this.name), formatPidRecord(record, this.token));
    let status: string | null = null;
    const { leafCode, signal, kill, reason } = await this.leaf.outcome.finally(() => {
      abort?.removeEventListener('abort', onAbort);
      // The whole tree is gone (or the kill gave up): bwrap has written all it will.
      if (statusFd !== null) status = readStatus(statusFd);
    });
    if (reason === 'stop') {
      this.event(createEvent('stop', { mode: 'now', action: 'honoured', leaf: this.name }, this.context));
    }
    const end: ExitStatus = reason !== null ? `killed-${reason}` : signal !== null ? 'killed-external' : 'exited';
    const code = end === 'exited' ? (leafCode ?? EXIT_KILLED) : EXIT_KILLED;
    // bwrap reports the leaf's exit code once the leaf ran; an exit without it is a sandbox it could not make.
    if (status !== null && end === 'exited' && code !== 0 && !/"exit-code"/.test(status)) {
      return this.finish('failed-start', EXIT_NO_SANDBOX, { error: sandboxFailure(this.env), leafCode, kill });
    }
    return this.finish(end, code, { leafCode, signal, kill });
  }

  private event(event: LeapEvent): void {
    appendEventSafely(this.paths.events, event, this.warnings);
  }

  private finish(status: ExitStatus, code: number, more: EndDetails): SuperviseResult {
    const result: SuperviseResult = {
      name: this.name,
      code,
      status,
      run: this.run,
      leafPid: this.leafPid,
      leafCode: more.leafCode ?? null,
      signal: more.signal ?? null,
      received: status === 'killed-signal' ? this.pendingSignal : null,
      durationMs: Math.round(nowMs() - this.started),
      leftovers: more.kill?.leftovers ?? 0,
      escaped: more.kill?.escaped ?? 0,
      unkillable: more.kill?.unkillable ?? [],
      error: more.error ?? null,
      warnings: this.warnings,
      sandbox: this.options.sandbox == null ? 'off' : 'bwrap',
    };
    this.options.beforeRecord?.(result);
    recordEnd(this.paths, result, this.context);
    return result;
  }
}

function roleOf(name: string) {
  const role = orElse(() => leafRole(name), null);
  return { actor: role?.actor ?? null, phase: role?.phase ?? null, attempt: role?.attempt ?? null };
}

export const DEFAULT_KILL_AFTER_MS = 5000;

type SuperviseConfig = ReturnType<typeof readSuperviseConfig>;

/** Read VERI_ISSUE, VERI_STEP, VERI_TIMEOUT (or the timeout file), VERI_KILL_AFTER, VERI_IDLE_TIMEOUT. */
export function readSuperviseConfig(stateDir: string, env: NodeJS.ProcessEnv) {
  const context = readRunContext(stateDir, env);
  return {
    context,
    timeoutMs: context.timeoutMs, // 0: none
    killAfterMs: readDurationVar(env, 'VERI_KILL_AFTER', DEFAULT_KILL_AFTER_MS), // 0: SIGKILL at once
    idleMs: readDurationVar(env, 'VERI_IDLE_TIMEOUT', 0), // no output and no CPU progress for this long; 0: off
  };
}

type LeafEnvOptions = { timeoutMs: number; skillCommit: string | null; marker: string; killAfterMs?: number };

/** VERI_KILL_AFTER is half our grace: a nested supervisor (leap-verify's) writes its exit file before our SIGKILL. */
export function buildLeafEnv(env: NodeJS.ProcessEnv, options: LeafEnvOptions): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  delete out[READY_FD_VAR];
  if (options.timeoutMs > 0) {
    const ms = String(Math.min(Math.ceil(options.timeoutMs), Number.MAX_SAFE_INTEGER));
    if (out.BASH_DEFAULT_TIMEOUT_MS === undefined) out.BASH_DEFAULT_TIMEOUT_MS = ms;
    if (out.BASH_MAX_TIMEOUT_MS === undefined) out.BASH_MAX_TIMEOUT_MS = ms;
  }
  if (options.skillCommit !== null) out.VERI_SKILL_COMMIT = options.skillCommit;
  if (options.killAfterMs !== undefined) out.VERI_KILL_AFTER = String(Math.floor(options.killAfterMs / 2) / 1000);
  out[options.marker] = '1';
  return out;
}
