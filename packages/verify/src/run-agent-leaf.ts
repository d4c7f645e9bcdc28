// An agent leaf supervised in this process: a Node supervisor per leaf costs a start-up (100 ms), a jury starts three
// at once, and surviving the parent's kill is leap-detach's job. Around it: a readiness check, a retry watch, usage.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AgentAnswer, AgentDry, AgentInvocation, AgentOptions, AgentPlugin, AgentRetry, AgentUsage } from '@leap/core';
import { LeapError, appendEvent, checkLeafName, createEvent, findExecutable, readEventContextAnyway, readFileIfExists, readTail, statePaths } from '@leap/core';
import { prepareSandbox, readPidFile, supervise, type SandboxSpec, type SuperviseResult } from '@leap/supervise';
import { lastWords } from './test-report.js';

export interface AgentLeafOptions {
  /** The leaf name (`verify-green`, `review-1a2b3c4d-openai`). */
  name: string;
  agent: AgentPlugin;
  prompt: string;
  options: AgentOptions;
  stateDir: string;
  env: NodeJS.ProcessEnv;
  /** Default true; a caller that ran `checkAgentReady` once per run may skip it. */
  preflight?: boolean;
  /** How long a CLI may retry an unreachable, rate-limited or overloaded service before the leaf ends; 0 never. */
  retryLimitMs?: number;
  /** From agentSandbox (CONTRACT section 13); the invocation's own variables are set inside, beside the allow-list. */
  sandbox?: SandboxSpec | null;
}

/** `missing`: not installed; `failed`: by itself or unsupervisable; `killed`: by its supervisor; `answer`: unread. */
export type AgentFailureKind = 'missing' | 'failed' | 'killed' | 'answer';

export interface AgentLeafResult {
  name: string;
  /** The supervisor's exit code: the agent's own, or 2 when it was killed, 126/127 when it could not start. */
  code: number;
  /** The supervisor's status (`exited`, `killed-timeout`, `failed-start`...). */
  status: string;
  stdout: string;
  stderr: string;
  /** The agent's answer, when it exited 0 and its output was that CLI's format. */
  answer: AgentAnswer | null;
  /** Why there is no answer, in the CLI's own words where it gave some. */
  failure: string | null;
  failureKind: AgentFailureKind | null;
  /** A `failed` leaf whose vendor ran dry (quota, rate limit, overload), as its plugin reads the output; else null. */
  dry: AgentDry | null;
  /** What the CLI reported about tokens and cost, as the leaf's `usage` event records it; null when no event was written. */
  usage: AgentUsage | null;
}

// What a leaf ended by the retry watch says of a vendor that ran dry, before the CLI's words.
const DRY_WORDS: Record<AgentDry['kind'], string> = { quota: 'its quota is spent', 'rate-limit': 'rate-limited', overload: 'its service is overloaded' };

/** A CLI that has retried an unreachable service this long, with at least RETRY_MIN_ATTEMPTS attempts, is ended. */
export const DEFAULT_RETRY_LIMIT_MS = 30_000;
const RETRY_MIN_ATTEMPTS = 3;
const RETRY_POLL_MS = 250;
const TAIL_BYTES = 256 * 1024;
const PREFLIGHT_TIMEOUT_MS = 20_000;

/** Waits for the whole tree; a TERM, INT, HUP or QUIT to this process meanwhile ends the leaf, not this process. */
export async function runAgentLeaf(leaf: AgentLeafOptions): Promise<AgentLeafResult> {
  const name = checkLeafName(leaf.name);
  const refused = (code: number, failureKind: AgentFailureKind, failure: string): AgentLeafResult => ({
    name,
    code,
    status: 'failed-start',
    stdout: '',
    stderr: '',
    answer: null,
    failure,
    failureKind,
    dry: null,
    usage: null,
  });
  let invocation: AgentInvocation;
  try {
    invocation = leaf.agent.buildInvocation(leaf.prompt, leaf.sandbox == null ? leaf.options : { ...leaf.options, sandboxed: true });
  } catch (error) {
    if (!(error instanceof LeapError)) throw error;
    return refused(error.exitCode, 'failed', `${leaf.agent.name} cannot take this prompt: ${error.message}`);
  }
  const sandbox = leaf.sandbox == null ? null : { ...leaf.sandbox, env: { ...leaf.sandbox.env, ...definedOnly(invocation.env) } };
  if (leaf.preflight !== false) {
    // In the leaf's own sandbox: the check reaches what the leaf will, and no more.
    const ready = await checkAgentReady(leaf.agent, leaf.options, leaf.env, undefined, leaf.sandbox ?? null);
    if (!ready.ready) return refused(ready.code, ready.failureKind, ready.failure);
  }
  const env: Record<string, string | undefined> = { ...leaf.env, VERI_STATE_DIR: leaf.stateDir, ...invocation.env };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const paths = statePaths(leaf.stateDir);
  // NAME.pid is the supervisor's lock; once held, it replaces NAME.exit and empties NAME.out and .err, as `>` would.
  let run: SuperviseResult;
  const abort = new AbortController();
  const watch = watchRetries(leaf.agent, paths.out(name), paths.err(name), paths.pid(name), leaf.retryLimitMs ?? DEFAULT_RETRY_LIMIT_MS, abort);
  try {
    run = await supervise({
      name,
      command: invocation.command,
      args: invocation.args,
      env: env as NodeJS.ProcessEnv,
      cwd: leaf.options.cwd,
      handleSignals: true,
      io: { input: invocation.stdin ?? '', stdoutFile: paths.out(name), stderrFile: paths.err(name) },
      abort: abort.signal,
      sandbox,
    });
  } catch (error) {
    // Refused before the leaf could start: a live supervisor holds NAME (its files are left alone), or the state folder is unusable.
    if (!(error instanceof LeapError)) throw error;
    return refused(error.exitCode, 'failed', `${leaf.agent.name} could not be supervised: ${error.message}`);
  } finally {
    watch.stop();
  }
  const stdout = readFileIfExists(paths.out(name)) ?? '';
  const stderr = readFileIfExists(paths.err(name)) ?? '';
  const result: AgentLeafResult = { name, code: run.code, status: run.status, stdout, stderr, answer: null, failure: null, failureKind: null, dry: null, usage: null };
  // Without the plugin's reading, stderr's last line: stdout is where a plain agent's answer goes, not its complaint.
  const said = () => leaf.agent.explainFailure?.(stdout, stderr) ?? lastWords(stderr, 500);
  const broken = watch.ended === null && run.status === 'exited' && run.code === 0 ? (leaf.agent.brokenRun?.(stdout, stderr, invocation) ?? null) : null;
  if (watch.ended !== null) {
    const { attempts, message, seconds, final } = watch.ended;
    result.failureKind = 'failed';
    // A vendor that ran dry is named as such, in the plugin's reading of the CLI's words: the caller gives the leaf to another vendor.
    const dry = leaf.agent.ranDry?.(stdout, stderr) ?? null;
    result.dry = dry;
    if (dry !== null) {
      const ended = final ? 'the leaf was ended at its first retry: no retry can help' : `the leaf was ended after ${attempts} attempts in ${seconds} s`;
      result.failure = `${leaf.agent.name} ran dry (${DRY_WORDS[dry.kind]}): ${dry.message} (${ended})`;
    } else {
      result.failure = final
        ? `${leaf.agent.name} was refused by its service: ${message} (the leaf was ended)`
        : `${leaf.agent.name} cannot reach its service: ${attempts} failed attempts in ${seconds} s, the last: ${message} (the leaf was ended)`;
    }
  } else if (run.status === 'failed-start') {
    result.failureKind = run.code === 126 || run.code === 127 ? 'missing' : 'failed';
    const why = run.code === 127 ? 'was not found' : run.code === 126 ? 'is not executable' : `could not be supervised: ${run.error ?? 'unknown error'}`;
    result.failure = `${leaf.agent.name} could not start: ${invocation.command} ${why} (${run.status}, code ${run.code})`;
  } else if (run.status !== 'exited') {
    result.failureKind = 'killed';
    const words = said();
    result.failure = `${leaf.agent.name} was stopped by its supervisor (${run.status})${words === null ? '' : `; the CLI said last: ${words}`}`;
  } else if (run.code !== 0) {
    const words = said();
    result.failureKind = 'failed';
    result.failure = `${leaf.agent.name} exited with code ${run.code} (${run.status})${words === null ? '' : `: ${words}`}`;
  } else if (broken !== null) {
    // It exited 0, but its output shows it could not work (codex's own sandbox that could not start).
    result.failureKind = 'failed';
    result.failure = `${leaf.agent.name} exited 0 but could not do its work: ${broken}`;
  } else {
    try {
      result.answer = leaf.agent.parseAnswer(stdout);
    } catch (error) {
      result.failureKind = 'answer';
      result.failure = `could not read ${leaf.agent.name}'s answer: ${(error as Error).message}`;
    }
  }
  if (result.failureKind === 'failed' && watch.ended === null) result.dry = leaf.agent.ranDry?.(stdout, stderr) ?? null;
  result.usage = recordUsage(leaf, name, invocation, result);
  return result;
}

function definedOnly(env: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env ?? {})) if (value !== undefined) out[key] = value;
  return out;
}

/** Whether an agent's CLI can run at all, by its own cheap check (`codex login status`); ready when it has none. */
export type AgentReadiness = { ready: true } | { ready: false; code: number; failureKind: 'missing' | 'failed'; failure: string };

/** Killed past `timeoutMs`; with `sandbox`, it reaches what the leaf would, writing only an empty folder of its own. */
export async function checkAgentReady(
  agent: AgentPlugin,
  options: AgentOptions,
  env: NodeJS.ProcessEnv,
  timeoutMs = PREFLIGHT_TIMEOUT_MS,
  sandbox: SandboxSpec | null = null,
): Promise<AgentReadiness> {
  // Asked as its leaf will run: in the sandbox, the CLI's own is off (AgentOptions.sandboxed), as buildInvocation has it.
  const check = agent.preflight?.(sandbox === null ? options : { ...options, sandboxed: true }) ?? null;
  if (check === null) return { ready: true };
  const merged: Record<string, string | undefined> = { ...env, ...check.env };
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  const shown = [check.command, ...check.args].join(' ');
  const ran =
    sandbox === null ? await runCheck(check, merged as NodeJS.ProcessEnv, options.cwd, timeoutMs) : await runCheckSandboxed(check, merged as NodeJS.ProcessEnv, sandbox, options.cwd, timeoutMs);
  if (ran.code === 0) return { ready: true };
  if (ran.startError !== null) {
    const missing = ran.startError === 'ENOENT' || ran.startError === 'EACCES';
    const why = ran.startError === 'ENOENT' ? 'was not found' : ran.startError === 'EACCES' ? 'is not executable' : `could not start (${ran.startError})`;
    return { ready: false, code: ran.startError === 'EACCES' ? 126 : 127, failureKind: missing ? 'missing' : 'failed', failure: `${agent.name} could not start: ${check.command} ${why}` };
  }
  const words = agent.explainFailure?.(ran.stdout, ran.stderr) ?? lastWords(ran.stderr, 500) ?? lastWords(ran.stdout, 500);
  // A check that runs through a launcher (codex's reads its config with node) says 127 or 126 when the CLI itself is not there.
  if (ran.code === 127 || ran.code === 126) {
    return {
      ready: false,
      code: ran.code,
      failureKind: 'missing',
      failure: `${agent.name} could not start: ${words ?? `${check.command} ${ran.code === 127 ? 'was not found' : 'is not executable'}`}`,
    };
  }
  const how = ran.code === null ? `did not answer within ${timeoutMs / 1000} s` : `exited with code ${ran.code}`;
  return { ready: false, code: ran.code ?? 2, failureKind: 'failed', failure: `${agent.name} is not ready: \`${shown}\` ${how}${words === null ? '' : `: ${words}`}` };
}

/** A missing command is said as outside (ENOENT, EACCES) before bwrap starts: bwrap would only say exec failed. */
async function runCheckSandboxed(check: AgentInvocation, env: NodeJS.ProcessEnv, spec: SandboxSpec, cwd: string, timeoutMs: number): ReturnType<typeof runCheck> {
  const command = findExecutable(check.command, env.PATH, cwd);
  if (command === null) {
    const there = check.command.includes('/') ? existsSync(resolve(cwd, check.command)) : (env.PATH ?? '').split(':').some((d) => d !== '' && existsSync(join(resolve(cwd, d), check.command)));
    return { code: null, stdout: '', stderr: '', startError: there ? 'EACCES' : 'ENOENT' };
  }
  const box = mkdtempSync(join(tmpdir(), 'leap-check-'));
  try {
    let prepared: ReturnType<typeof prepareSandbox>;
    try {
      prepared = prepareSandbox({ ...spec, apart: undefined, role: 'writer', tree: box, cwd: box, env: { ...spec.env, ...definedOnly(check.env) } }, command, check.args, env);
    } catch (error) {
      return { code: 2, stdout: '', stderr: (error as Error).message, startError: null };
    }
    try {
      return await runCheck({ ...check, command: prepared.command, args: prepared.args, env: undefined }, prepared.env, box, timeoutMs);
    } finally {
      prepared.cleanup();
    }
  } finally {
    rmSync(box, { recursive: true, force: true });
  }
}

function runCheck(check: AgentInvocation, env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string; startError: string | null }> {
  return new Promise((resolve) => {
    const child = spawn(check.command, check.args, { env, cwd, stdio: [check.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], detached: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    child.stdin?.on('error', () => {});
    child.stdin?.end(check.stdin);
    const timer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ code: null, stdout: '', stderr: '', startError: error.code ?? error.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), startError: null });
    });
  });
}

// The answer's usage, else a failed run's (a Claude error result has its cost); a plain answer's is all nulls.
function recordUsage(leaf: AgentLeafOptions, name: string, invocation: AgentInvocation, result: AgentLeafResult): AgentUsage | null {
  const nothing: AgentUsage = { model: null, input_tokens: null, output_tokens: null, cost_usd: null };
  const reported = result.answer !== null ? (result.answer.usage ?? leaf.agent.parseUsage?.(result.stdout) ?? nothing) : (leaf.agent.parseUsage?.(result.stdout) ?? null);
  if (reported === null) return null;
  const usage: AgentUsage = { ...reported, model: reported.model ?? invocation.model ?? leaf.options.model ?? null };
  const context = readEventContextAnyway(leaf.stateDir, leaf.env);
  appendEvent(statePaths(leaf.stateDir).events, createEvent('usage', { leaf: name, agent: leaf.agent.name, family: leaf.agent.family, ...usage }, context));
  return usage;
}

interface RetryWatch {
  stop(): void;
  ended: { attempts: number; message: string; seconds: number; final: boolean } | null;
}

// The abort has the supervisor end the leaf's tree with its own kill sequence, recording `killed-stuck`.
function watchRetries(agent: AgentPlugin, outFile: string, errFile: string, pidFile: string, limitMs: number, abort: AbortController): RetryWatch {
  const watch: RetryWatch = { stop: () => {}, ended: null };
  if (agent.retrying === undefined || limitMs <= 0) return watch;
  const started = Date.now();
  let sizes = '';
  let retry: AgentRetry | null = null;
  let since = 0;
  let leafPid: number | null = null;
  const timer = setInterval(() => {
    // Not before the leaf runs: until then NAME.out may still be a previous run's.
    if (leafPid === null) {
      const pid = readPidFile(pidFile)?.leaf;
      if (pid === undefined || !isChildOfThisProcess(pid)) return;
      leafPid = pid;
    }
    const now = Date.now();
    const seen = `${sizeOf(outFile)}:${sizeOf(errFile)}`;
    if (seen !== sizes) {
      sizes = seen;
      const next = agent.retrying?.(readTail(outFile, TAIL_BYTES), readTail(errFile, TAIL_BYTES)) ?? null;
      if (next === null) retry = null;
      else if (retry === null) since = now;
      retry = next;
    }
    // A final refusal (an authentication failure) ends the leaf at once; a passing fault only after enough tries and time.
    if (retry === null || watch.ended !== null || (retry.final !== true && (retry.attempts < RETRY_MIN_ATTEMPTS || now - since < limitMs))) return;
    if (!isChildOfThisProcess(leafPid)) return;
    watch.ended = { attempts: retry.attempts, message: retry.message, seconds: Math.round((now - started) / 100) / 10, final: retry.final === true };
    abort.abort();
  }, RETRY_POLL_MS);
  watch.stop = () => {
    clearInterval(timer);
  };
  return watch;
}

function isChildOfThisProcess(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid;
  } catch {
    return false;
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return -1;
  }
}
