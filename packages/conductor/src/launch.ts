// Leaves, supervised in process with the seed's launch-line environment, their ends read by the bail table; the limits.
import { appendFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { formatSeconds, readStopRequest, readTimeLimit } from '@leap/core';
import type { AgentDry, AgentRole, TimeLimit } from '@leap/core';
import { type SuiteLimitError, runAgentLeaf, type AgentLeafResult } from '@leap/verify';
import { agentWords } from './agent-words.js';
import { agentLeafSandbox } from './leaf-sandboxes.js';
import { Bail, Stopped, carrying } from './bail-causes.js';
import type { ConductorSetup, RunBase, RunContext } from './conductor.js';
import { gather, type Gathered } from './gathered.js';
import { currentAgent, dryCauses, type RoleAgent, type RunRole } from './run-agents.js';
import { DEFAULT_IDLE_TIMEOUT } from './run-options.js';
import { appendUsage, describeSpend, hasUsageSince, issueCosts } from './usage-log.js';
import { suiteLimitNarration } from './watch-mode.js';

export function leafEnv(ctx: RunContext, step: string | null, phase: string, attempt: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...ctx.env,
    VERI_TEST_CMD: ctx.testCmd,
    VERI_ISSUE: String(ctx.issue),
    LEAP_PHASE: phase,
    LEAP_ATTEMPT: String(attempt),
  };
  Object.assign(env, limitsEnv(ctx.setup));
  if (step === null) delete env.VERI_STEP;
  else env.VERI_STEP = step;
  return env;
}

/** --timeout (or leap.config.json) wins over VERI_TIMEOUT and the timeout file; the idle limit is on unless 0. */
export function limitsEnv(setup: ConductorSetup): NodeJS.ProcessEnv {
  const { timeout } = setup.effective;
  return { ...(timeout === undefined ? {} : { VERI_TIMEOUT: timeout }), VERI_IDLE_TIMEOUT: idleLimit(setup).value };
}

export function suiteLimitBail(run: RunBase & { testCmd: string }, error: SuiteLimitError): Bail {
  const own = { value: run.env.VERI_SUITE_TIMEOUT ?? '', source: error.source };
  const { value, source } =
    error.limit === 'idle' ? idleLimit(run.setup) : error.source === 'VERI_SUITE_TIMEOUT' ? own : timeLimit(run);
  return new Bail(
    'suite-limit',
    suiteLimitNarration(run.root, run.testCmd, { limit: error.limit, lastLine: error.lastLine, value, source }),
  );
}

function idleLimit(setup: ConductorSetup): { value: string; source: string } {
  const { idleTimeout } = setup.effective;
  if (idleTimeout !== undefined) return { value: idleTimeout, source: setup.sources.idleTimeout ?? '--idle-timeout' };
  if (setup.env.VERI_IDLE_TIMEOUT !== undefined && setup.env.VERI_IDLE_TIMEOUT !== '')
    return { value: setup.env.VERI_IDLE_TIMEOUT, source: 'VERI_IDLE_TIMEOUT' };
  return { value: DEFAULT_IDLE_TIMEOUT, source: 'the default' };
}

function timeLimit(run: RunBase): { value: string; source: string } {
  const { timeout } = run.setup.effective;
  if (timeout !== undefined) return { value: timeout, source: run.setup.sources.timeout ?? '--timeout' };
  let limit: TimeLimit;
  try {
    limit = readTimeLimit(run.paths.dir, run.issue, run.env);
  } catch (error) {
    return { value: 'unreadable', source: `${(error as Error).message}: every leaf will refuse to start` };
  }
  if (limit.source === 'VERI_TIMEOUT') return { value: run.env.VERI_TIMEOUT as string, source: 'VERI_TIMEOUT' };
  const source = limit.source === 'default' ? 'the default' : relative(run.root, limit.source);
  return { value: formatSeconds(limit.ms), source };
}

export function limitsLine(run: RunBase): string {
  const time = timeLimit(run);
  const idle = idleLimit(run.setup);
  return (
    `leaves: time limit ${time.value} (${time.source}), idle limit ${idle.value} ` +
    `(${idle.source}; no output and no CPU progress that long is killed-stuck)`
  );
}

/** After the bail table: `retry` is worth one relaunch; `dry` hands the leaf to the role's next agent (fallOver). */
export type LeafEnd =
  | { kind: 'ok'; result: AgentLeafResult }
  | { kind: 'retry'; status: 'killed-timeout' | 'killed-stuck' }
  | { kind: 'dry'; dry: AgentDry };

export type Launched<End> = End & { readonly gathered: Gathered };

function nextAgent(
  ctx: RunContext,
  role: RunRole,
  developerFamily: string | undefined,
): { next: RoleAgent | null; avoid: string | null } {
  const { agents } = ctx.setup;
  const avoid =
    role === 'verifier' ? (developerFamily ?? currentAgent(agents, ctx.dry, 'developer')?.agent.family ?? null) : null;
  return { next: currentAgent(agents, ctx.dry, role, avoid), avoid };
}

/** The verifier: of another family than `developerFamily` unless allowed; the agent-failed bail when all ran dry. */
export function agentFor(ctx: RunContext, role: RunRole, developerFamily?: string): RoleAgent {
  const { next, avoid } = nextAgent(ctx, role, developerFamily);
  if (next !== null) return next;
  const why =
    role === 'verifier' && avoid !== null
      ? ` (a verifier of the developer's family, ${avoid}, is not asked: blindness)`
      : '';
  throw new Bail(
    'agent-failed',
    `Every ${role} agent of the list ran dry${why}: ${dryCauses(ctx.setup.agents, ctx.dry, role)}.`,
  );
}

/** The agent is skipped for the rest of the run; the caller relaunches the leaf, not counted as a revision. */
export async function fallOver(
  ctx: RunContext,
  role: RunRole,
  from: RoleAgent,
  leaf: string,
  dry: AgentDry,
  step: string | null,
  developerFamily?: string,
): Promise<RoleAgent> {
  ctx.dry.set(from.name, { ...dry, role });
  const { next } = nextAgent(ctx, role, developerFamily);
  const fields = { leaf, role, agent: from.name, family: from.agent.family, cause: dry.kind, message: dry.message };
  ctx.event('fallover', { ...fields, next: next?.name ?? null }, step);
  const then =
    next === null
      ? `no ${role} agent is left to take the leaf`
      : `${next.name} takes the leaf (not counted as a revision)`;
  await ctx.say(`${leaf}: the ${role} agent ${from.name}'s vendor ran dry (${dry.kind}): ${dry.message}; ${then}`);
  return next ?? agentFor(ctx, role, developerFamily);
}

/** A missing or failing CLI, killed-external, a stop or a signal end the run here; a bail thrown carries the leaf. */
export async function launchAgentLeaf(
  ctx: RunContext,
  name: string,
  role: AgentRole,
  chosen: RoleAgent,
  prompt: string,
  step: string | null,
  phase: string,
  attempt: number,
  where: string,
): Promise<Launched<LeafEnd>> {
  await ctx.checkStop(where);
  const offset = eventsSize(ctx);
  const ran = gather({ leaves: 1 });
  try {
    const env = leafEnv(ctx, step, phase, attempt);
    const result = await runAgentLeaf({
      name,
      agent: chosen.agent,
      prompt,
      options: { role, cwd: ctx.root },
      stateDir: ctx.paths.dir,
      env,
      preflight: false,
      sandbox: agentLeafSandbox(ctx.setup.sandbox, role, chosen.agent, ctx.root, ctx.paths.dir, env, name),
    });
    ctx.heads.invalidate();
    try {
      appendFileSync(ctx.paths.err(name), `supervise[${name}]: ${result.status}\n`);
    } catch {}
    if (!hasUsageSince(ctx.paths.events, offset, name))
      appendUsage(ctx.paths.events, name, chosen.agent, result.answer?.usage, ctx.context(step));
    checkCost(ctx);
    const end = classify(ctx, role, chosen, result, where, leafWords(chosen, result));
    return { ...(end ?? { kind: 'ok', result }), gathered: ran };
  } catch (error) {
    throw carrying(error, ran);
  }
}

// The bail table (CONTRACT section 9) for every role: null when all is well, a retry for a limit's kill, else throws.
export function classify(
  ctx: RunContext,
  role: AgentRole,
  chosen: RoleAgent,
  result: AgentLeafResult,
  where: string,
  words: string,
): Exclude<LeafEnd, { kind: 'ok' }> | null {
  const { name, status, code, failureKind: kind } = result;
  if (status === 'exited' && code === 0 && kind !== 'failed') return null;
  if (kind === 'failed' && result.dry !== null) return { kind: 'dry', dry: result.dry };
  if (kind === 'missing' || (kind === null && status === 'failed-start')) {
    throw new Bail(
      'agent-missing',
      `The ${agentLabel(role, chosen.name)} could not start: ${words || `${name} failed to start`}`,
    );
  }
  const failed = (what: string) =>
    new Bail(
      'agent-failed',
      `The ${agentLabel(role, chosen.name)} failed by itself (${what}); this does not count against the step. ` +
        `It said:\n${words || '(nothing)'}`,
    );
  if (kind === 'failed' || status === 'failed-start') throw failed(name);
  if (status === 'refused-stop' || status === 'killed-stop') {
    throw new Stopped(
      status === 'killed-stop' ? 'now' : stopMode(ctx),
      status === 'killed-stop' ? `${where} (the running leaf ${name} was ended)` : where,
    );
  }
  if (status === 'killed-signal')
    throw new Stopped('signal', `${where} (the conductor was signalled; ${name} was ended)`);
  if (status === 'killed-timeout' || status === 'killed-stuck') return { kind: 'retry', status };
  if (status === 'killed-external') {
    throw new Bail(
      'killed-external',
      `The ${role} leaf ${name} died of a signal veri did not send (killed-external): it is not relaunched.`,
    );
  }
  throw failed(`${name} exited ${code}`);
}

export function leafWords(chosen: RoleAgent, result: AgentLeafResult): string {
  return onceEach([result.failure, agentWords(chosen.agent, result.stdout, result.stderr)]);
}

// The CLI's words once: runAgentLeaf's failure often quotes the same stderr the agent's words are read from.
export function onceEach(texts: (string | null | undefined)[]): string {
  const kept: string[] = [];
  for (const text of texts) {
    const t = text?.trim() ?? '';
    if (t === '' || kept.some((k) => k.includes(t))) continue;
    for (let i = kept.length - 1; i >= 0; i--) if (t.includes(kept[i] as string)) kept.splice(i, 1);
    kept.push(t);
  }
  return kept.join('\n');
}

function agentLabel(role: string, name: string): string {
  return name === role ? `${role} agent` : `${role} agent ${JSON.stringify(name)}`;
}

function stopMode(ctx: RunContext): string {
  const request = readStopRequest(ctx.paths.stop);
  return request.kind === 'requested' && request.mode !== 'at-ledger' ? request.mode : 'at-leaf';
}

export const eventsSize = (ctx: RunContext): number => statSync(ctx.paths.events, { throwIfNoEntry: false })?.size ?? 0;

export function checkCost(ctx: RunContext): void {
  const max = ctx.setup.effective.maxCost;
  if (max === undefined) return;
  const spent = describeSpend(issueCosts(ctx.paths.events, ctx.issue));
  if (spent.total > max) {
    throw new Bail(
      'cost-budget',
      `The leaves of issue ${ctx.issue} have cost $${spent.total.toFixed(4)}, ` +
        `past the budget of $${max} (--max-cost): ${spent.text}.`,
    );
  }
}
