// An agent CLI run as a supervised leaf, in this process; its answer, failure and usage read back.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AgentAnswer, AgentDry, AgentInvocation, AgentOptions, AgentPlugin, AgentUsage } from '@leap/core';
import { LeapError, appendEvent, checkLeafName, createEvent, findExecutable, readEventContextAnyway } from '@leap/core';
import { orElse, readFileIfExists, statePaths } from '@leap/core';
import { prepareSandbox, supervise, type SandboxSpec, type SuperviseResult } from '@leap/supervise';
import { type RetryWatch, watchRetries } from './retry-watch.js';
import { lastWords } from './test-report.js';

type LeafInput = { name: string; agent: AgentPlugin; prompt: string; options: AgentOptions; stateDir: string };
export interface AgentLeafOptions extends LeafInput {
  env: NodeJS.ProcessEnv;
  preflight?: boolean;
  /** How long a CLI may retry an unreachable, rate-limited or overloaded service before the leaf ends; 0 never. */
  retryLimitMs?: number;
  sandbox?: SandboxSpec | null;
}

/** `missing`: not installed; `failed`: by itself or unsupervisable; `killed`: by its supervisor; `answer`: unread. */
export type AgentFailureKind = 'missing' | 'failed' | 'killed' | 'answer';
type LeafAnswer = { answer: AgentAnswer | null; failure: string | null; failureKind: AgentFailureKind | null };
type LeafEnd = LeafAnswer & { dry: AgentDry | null };
/** `code`: the supervisor's, the agent's own, or 2 when it was killed, 126/127 when it could not start. */
type LeafRan = { name: string; code: number; status: string; stdout: string; stderr: string; usage: AgentUsage | null };
export type AgentLeafResult = LeafRan & LeafEnd;

const DRY_WORDS: Record<AgentDry['kind'], string> = {
  quota: 'its quota is spent',
  'rate-limit': 'rate-limited',
  overload: 'its service is overloaded',
};

export const DEFAULT_RETRY_LIMIT_MS = 30_000;
const PREFLIGHT_TIMEOUT_MS = 20_000;

/** Waits for the whole tree; a TERM, INT, HUP or QUIT to this process meanwhile ends the leaf, not this process. */
export async function runAgentLeaf(leaf: AgentLeafOptions): Promise<AgentLeafResult> {
  const name = checkLeafName(leaf.name);
  const { agent } = leaf;
  const options = leaf.sandbox == null ? leaf.options : { ...leaf.options, sandboxed: true };
  const refuse = (error: unknown, what: string) => {
    if (!(error instanceof LeapError)) throw error;
    return refusedLeaf(name, error.exitCode, 'failed', `${agent.name} ${what}: ${error.message}`);
  };
  let invocation: AgentInvocation;
  try {
    invocation = agent.buildInvocation(leaf.prompt, options);
  } catch (error) {
    return refuse(error, 'cannot take this prompt');
  }
  if (leaf.preflight !== false) {
    const ready = await checkAgentReady(agent, leaf.options, leaf.env, undefined, leaf.sandbox ?? null);
    if (!ready.ready) return refusedLeaf(name, ready.code, ready.failureKind, ready.failure);
  }
  let supervised: LeafRun;
  try {
    supervised = await superviseLeaf(leaf, name, invocation);
  } catch (error) {
    return refuse(error, 'could not be supervised');
  }
  const { run, stdout, stderr } = supervised;
  const end = readEnd(agent, invocation, supervised);
  const result: AgentLeafResult = { name, code: run.code, status: run.status, stdout, stderr, ...end, usage: null };
  result.usage = recordUsage(leaf, name, invocation, result);
  return result;
}

function refusedLeaf(name: string, code: number, failureKind: AgentFailureKind, failure: string): AgentLeafResult {
  const status = 'failed-start';
  return { name, code, status, stdout: '', stderr: '', answer: null, failure, failureKind, dry: null, usage: null };
}

async function superviseLeaf(leaf: AgentLeafOptions, name: string, invocation: AgentInvocation) {
  const { sandbox: box, stateDir } = leaf;
  const sandbox = box == null ? null : { ...box, env: { ...box.env, ...definedOnly(invocation.env) } };
  const env = definedOnly({ ...leaf.env, VERI_STATE_DIR: stateDir, ...invocation.env });
  const paths = statePaths(stateDir);
  const abort = new AbortController();
  const files = { out: paths.out(name), err: paths.err(name), pid: paths.pid(name) };
  const watch = watchRetries(leaf.agent, files, leaf.retryLimitMs ?? DEFAULT_RETRY_LIMIT_MS, abort);
  let run: SuperviseResult;
  try {
    const launch = { name, command: invocation.command, args: invocation.args, env, cwd: leaf.options.cwd };
    const io = { input: invocation.stdin ?? '', stdoutFile: files.out, stderrFile: files.err };
    run = await supervise({ ...launch, handleSignals: true, io, abort: abort.signal, sandbox });
  } finally {
    watch.stop();
  }
  const read = (file: string) => readFileIfExists(file) ?? '';
  return { run, ended: watch.ended, stdout: read(files.out), stderr: read(files.err) };
}

type LeafRun = { run: SuperviseResult; ended: RetryWatch['ended']; stdout: string; stderr: string };

function retryFailure(agent: string, ended: NonNullable<RetryWatch['ended']>, dry: AgentDry | null): string {
  const { attempts, message, seconds, final } = ended;
  if (dry !== null) {
    const after = `the leaf was ended after ${attempts} attempts in ${seconds} s`;
    const how = final ? 'the leaf was ended at its first retry: no retry can help' : after;
    return `${agent} ran dry (${DRY_WORDS[dry.kind]}): ${dry.message} (${how})`;
  }
  if (final) return `${agent} was refused by its service: ${message} (the leaf was ended)`;
  const tries = `${attempts} failed attempts in ${seconds} s`;
  return `${agent} cannot reach its service: ${tries}, the last: ${message} (the leaf was ended)`;
}

function readEnd(agent: AgentPlugin, invocation: AgentInvocation, { run, ended, stdout, stderr }: LeafRun): LeafEnd {
  const end = (failureKind: AgentFailureKind, failure: string, dry: AgentDry | null) =>
    ({ answer: null, failure, failureKind, dry }) satisfies LeafEnd;
  const dry = () => agent.ranDry?.(stdout, stderr) ?? null;
  const dried = ended === null ? null : dry();
  if (ended !== null) return end('failed', retryFailure(agent.name, ended, dried), dried);
  const failed = (kind: AgentFailureKind, why: string) =>
    end(kind, `${agent.name} ${why}`, kind === 'failed' ? dry() : null);
  // Without the plugin's reading, stderr's last line: stdout is where a plain agent's answer goes, not its complaint.
  const said = (lead: string) => {
    const words = agent.explainFailure?.(stdout, stderr) ?? lastWords(stderr, 500);
    return words === null ? '' : `${lead}${words}`;
  };
  const { status, code } = run;
  if (status === 'failed-start') {
    const unsupervised = `could not be supervised: ${run.error ?? 'unknown error'}`;
    const why = code === 127 ? 'was not found' : code === 126 ? 'is not executable' : unsupervised;
    const kind = code === 126 || code === 127 ? 'missing' : 'failed';
    return failed(kind, `could not start: ${invocation.command} ${why} (${status}, code ${code})`);
  }
  if (status !== 'exited')
    return failed('killed', `was stopped by its supervisor (${status})${said('; the CLI said last: ')}`);
  if (code !== 0) return failed('failed', `exited with code ${code} (${status})${said(': ')}`);
  const broken = agent.brokenRun?.(stdout, stderr, invocation) ?? null;
  if (broken !== null) return failed('failed', `exited 0 but could not do its work: ${broken}`);
  try {
    return { answer: agent.parseAnswer(stdout), failure: null, failureKind: null, dry: null };
  } catch (error) {
    return end('answer', `could not read ${agent.name}'s answer: ${(error as Error).message}`, null);
  }
}

function definedOnly(env: Record<string, string | undefined> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)) as Record<string, string>;
}

export type AgentReadiness =
  | { ready: true }
  | { ready: false; code: number; failureKind: 'missing' | 'failed'; failure: string };

/** Killed past `timeoutMs`; with `sandbox`, it reaches what the leaf would, writing only an empty folder of its own. */
export async function checkAgentReady(
  agent: AgentPlugin,
  options: AgentOptions,
  env: NodeJS.ProcessEnv,
  timeoutMs = PREFLIGHT_TIMEOUT_MS,
  sandbox: SandboxSpec | null = null,
): Promise<AgentReadiness> {
  // Asked as its leaf will run: in the sandbox, the CLI's own is off (AgentOptions.sandboxed).
  const check = agent.preflight?.(sandbox === null ? options : { ...options, sandboxed: true }) ?? null;
  if (check === null) return { ready: true };
  const merged = definedOnly({ ...env, ...check.env });
  const shown = [check.command, ...check.args].join(' ');
  const ran =
    sandbox === null
      ? await runCheck(check, merged, options.cwd, timeoutMs)
      : await runCheckSandboxed(check, merged, sandbox, options.cwd, timeoutMs);
  if (ran.code === 0) return { ready: true };
  const notReady = (code: number, failureKind: 'missing' | 'failed', failure: string) =>
    ({ ready: false, code, failureKind, failure: `${agent.name} ${failure}` }) as const;
  const unstarted = (code: number) => `${check.command} ${code === 127 ? 'was not found' : 'is not executable'}`;
  if (ran.startError !== null) {
    const code = ran.startError === 'EACCES' ? 126 : 127;
    const known = ran.startError === 'ENOENT' || ran.startError === 'EACCES';
    const why = known ? unstarted(code) : `${check.command} could not start (${ran.startError})`;
    return notReady(code, known ? 'missing' : 'failed', `could not start: ${why}`);
  }
  const words =
    agent.explainFailure?.(ran.stdout, ran.stderr) ?? lastWords(ran.stderr, 500) ?? lastWords(ran.stdout, 500);
  // A check run through a launcher (codex's reads its config with node) says 127 or 126 when the CLI is not there.
  if (ran.code === 127 || ran.code === 126)
    return notReady(ran.code, 'missing', `could not start: ${words ?? unstarted(ran.code)}`);
  const how = ran.code === null ? `did not answer within ${timeoutMs / 1000} s` : `exited with code ${ran.code}`;
  return notReady(ran.code ?? 2, 'failed', `is not ready: \`${shown}\` ${how}${words === null ? '' : `: ${words}`}`);
}

/** A missing command is said as outside (ENOENT, EACCES) before bwrap starts: bwrap would only say exec failed. */
async function runCheckSandboxed(check: AgentInvocation, env: Env, spec: SandboxSpec, cwd: string, timeoutMs: number) {
  const command = findExecutable(check.command, env.PATH, cwd);
  if (command === null) {
    const there = check.command.includes('/')
      ? existsSync(resolve(cwd, check.command))
      : (env.PATH ?? '').split(':').some((d) => d !== '' && existsSync(join(resolve(cwd, d), check.command)));
    return { code: null, stdout: '', stderr: '', startError: there ? 'EACCES' : 'ENOENT' };
  }
  const box = mkdtempSync(join(tmpdir(), 'leap-check-'));
  try {
    let prepared: ReturnType<typeof prepareSandbox>;
    const boxEnv = { ...spec.env, ...definedOnly(check.env) };
    const boxed = { ...spec, apart: undefined, role: 'writer' as const, tree: box, cwd: box, env: boxEnv };
    try {
      prepared = prepareSandbox(boxed, command, check.args, env);
    } catch (error) {
      return { code: 2, stdout: '', stderr: (error as Error).message, startError: null };
    }
    try {
      const inBox = { ...check, command: prepared.command, args: prepared.args, env: undefined };
      return await runCheck(inBox, prepared.env, box, timeoutMs);
    } finally {
      prepared.cleanup();
    }
  } finally {
    rmSync(box, { recursive: true, force: true });
  }
}

type Env = NodeJS.ProcessEnv;
type CheckRun = { code: number | null; stdout: string; stderr: string; startError: string | null };

function runCheck(check: AgentInvocation, env: Env, cwd: string, timeoutMs: number): Promise<CheckRun> {
  return new Promise((resolve) => {
    const stdin = check.stdin === undefined ? 'ignore' : 'pipe';
    const child = spawn(check.command, check.args, { env, cwd, stdio: [stdin, 'pipe', 'pipe'], detached: true });
    const [out, err]: [Buffer[], Buffer[]] = [[], []];
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    child.stdin?.on('error', () => {});
    child.stdin?.end(check.stdin);
    const kill = () => orElse(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), false);
    const timer = setTimeout(kill, timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ code: null, stdout: '', stderr: '', startError: error.code ?? error.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(), startError: null });
    });
  });
}

// The answer's usage, else a failed run's (a Claude error result has its cost); a plain answer's is all nulls.
function recordUsage(leaf: AgentLeafOptions, name: string, invocation: AgentInvocation, result: AgentLeafResult) {
  const nothing: AgentUsage = { model: null, input_tokens: null, output_tokens: null, cost_usd: null };
  const reported =
    result.answer !== null
      ? (result.answer.usage ?? leaf.agent.parseUsage?.(result.stdout) ?? nothing)
      : (leaf.agent.parseUsage?.(result.stdout) ?? null);
  if (reported === null) return null;
  const usage: AgentUsage = { ...reported, model: reported.model ?? invocation.model ?? leaf.options.model ?? null };
  const context = readEventContextAnyway(leaf.stateDir, leaf.env);
  const fields = { leaf: name, agent: leaf.agent.name, family: leaf.agent.family, ...usage };
  appendEvent(statePaths(leaf.stateDir).events, createEvent('usage', fields, context));
  return usage;
}
