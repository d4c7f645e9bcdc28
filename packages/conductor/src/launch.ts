// Leaves, supervised in process with the seed's launch-line environment, their ends read by the bail table; the cost.
import { appendFileSync, statSync } from 'node:fs';
import { appendEvent, createEvent, orElse, readStopRequest, readUsage } from '@leap/core';
import type { AgentDry, AgentPlugin, AgentRole, AgentUsage } from '@leap/core';
import { runAgentLeaf, type AgentLeafResult } from '@leap/verify';
import { agentLeafSandbox } from './leaf-sandboxes.js';
import { Bail, Stopped, carrying, gather, type Gathered } from './bail-causes.js';
import { suiteEnv } from './watch-mode.js';
import type { RunContext } from './conductor.js';
import { agentWords, currentAgent, dryCauses, type RoleAgent, type RunRole } from './run-agents.js';

export function leafEnv(ctx: RunContext, step: string | null, phase: string, attempt: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...suiteEnv(ctx), LEAP_PHASE: phase, LEAP_ATTEMPT: String(attempt) };
  if (step === null) delete env.VERI_STEP;
  else env.VERI_STEP = step;
  return env;
}

/** After the bail table: `retry` is worth one relaunch; `dry` hands the leaf to the role's next agent (fallOver). */
export type LeafEnd =
  | { kind: 'ok'; result: AgentLeafResult }
  | { kind: 'retry'; status: 'killed-timeout' | 'killed-stuck' }
  | { kind: 'dry'; dry: AgentDry };

export type Launched<End> = End & { readonly gathered: Gathered };

function nextAgent(ctx: RunContext, role: RunRole, developerFamily: string | undefined) {
  const { agents } = ctx.setup;
  const avoid =
    role === 'verifier' ? (developerFamily ?? currentAgent(agents, ctx.dry, 'developer')?.agent.family ?? null) : null;
  return { next: currentAgent(agents, ctx.dry, role, avoid), avoid };
}

/** The verifier: of another family than `developerFamily` unless allowed; the agent-failed bail when all ran dry. */
export function agentFor(ctx: RunContext, role: RunRole, developerFamily?: string): RoleAgent {
  const { next, avoid } = nextAgent(ctx, role, developerFamily);
  if (next !== null) return next;
  const blind = ` (a verifier of the developer's family, ${avoid}, is not asked: blindness)`;
  const why = role === 'verifier' && avoid !== null ? blind : '';
  const causes = dryCauses(ctx.setup.agents, ctx.dry, role);
  throw new Bail('agent-failed', `Every ${role} agent of the list ran dry${why}: ${causes}.`);
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
  const none = `no ${role} agent is left to take the leaf`;
  const then = next === null ? none : `${next.name} takes the leaf (not counted as a revision)`;
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
      sandbox: agentLeafSandbox(ctx, role, chosen.agent, env, name),
    });
    ctx.heads.invalidate();
    orElse(() => appendFileSync(ctx.paths.err(name), `supervise[${name}]: ${result.status}\n`), null);
    recordUsage(ctx, offset, name, chosen.agent, result.answer?.usage, step);
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
  const label = agentLabel(role, chosen.name);
  if (kind === 'missing' || (kind === null && status === 'failed-start'))
    throw new Bail('agent-missing', `The ${label} could not start: ${words || `${name} failed to start`}`);
  const said = `this does not count against the step. It said:\n${words || '(nothing)'}`;
  const failed = (what: string) => new Bail('agent-failed', `The ${label} failed by itself (${what}); ${said}`);
  if (kind === 'failed' || status === 'failed-start') throw failed(name);
  if (status === 'killed-stop') throw new Stopped('now', `${where} (the running leaf ${name} was ended)`);
  if (status === 'refused-stop') throw new Stopped(stopMode(ctx), where);
  if (status === 'killed-signal')
    throw new Stopped('signal', `${where} (the conductor was signalled; ${name} was ended)`);
  if (status === 'killed-timeout' || status === 'killed-stuck') return { kind: 'retry', status };
  const external = `${name} died of a signal veri did not send (killed-external): it is not relaunched.`;
  if (status === 'killed-external') throw new Bail('killed-external', `The ${role} leaf ${external}`);
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

// What the leaves cost (CONTRACT section 10), for --max-cost; read through core's readUsage, the one reader.
export function issueCosts(eventsFile: string, issue: number): { leaf: string; cost: number | null }[] {
  return readUsage(eventsFile)
    .filter((e) => e.issue === issue)
    .map((e) => ({ leaf: e.leaf, cost: e.cost_usd }));
}

/** Whether a usage event for `leaf` follows byte `offset` (runAgentLeaf appends one when usage is reported). */
export function hasUsageSince(eventsFile: string, offset: number, leaf: string): boolean {
  return readUsage(eventsFile, offset).some((e) => e.leaf === leaf);
}

export function describeSpend(costs: { leaf: string; cost: number | null }[]): { total: number; text: string } {
  const byLeaf = new Map<string, number>();
  let total = 0;
  for (const { leaf, cost } of costs) {
    if (cost === null) continue;
    total += cost;
    byLeaf.set(leaf, (byLeaf.get(leaf) ?? 0) + cost);
  }
  return { total, text: [...byLeaf].map(([leaf, cost]) => `${leaf} $${cost.toFixed(4)}`).join(', ') };
}

/** A usage event for the leaf, unless runAgentLeaf appended one since byte `offset` (when usage is reported). */
export function recordUsage(
  ctx: RunContext,
  offset: number,
  leaf: string,
  agent: AgentPlugin,
  usage: AgentUsage | undefined | null,
  step: string | null,
): void {
  if (hasUsageSince(ctx.paths.events, offset, leaf)) return;
  const fields = {
    leaf,
    agent: agent.name,
    family: agent.family,
    model: usage?.model ?? null,
    input_tokens: usage?.input_tokens ?? null,
    output_tokens: usage?.output_tokens ?? null,
    cost_usd: usage?.cost_usd ?? null,
  };
  appendEvent(ctx.paths.events, createEvent('usage', fields, ctx.context(step)));
}
