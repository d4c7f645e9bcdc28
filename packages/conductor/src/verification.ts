// A phase's verification: the verify library asked with the run's verifier, its verdict written as the seed's was.
import { writeFileSync } from 'node:fs';
import { LeapError, type AgentDry } from '@leap/core';
import { writeExitFile } from '@leap/supervise';
import { SuiteLimitError, verify } from '@leap/verify';
import { Bail, carrying } from './bail-causes.js';
import type { RunContext } from './conductor.js';
import { gather } from './gathered.js';
import { agentFor, checkCost, classify, eventsSize, leafEnv, leafWords, onceEach, suiteLimitBail } from './launch.js';
import type { Launched } from './launch.js';
import type { Phase } from './prompts.js';
import type { RoleAgent } from './run-agents.js';
import { appendUsage, hasUsageSince } from './usage-log.js';

type VerifyVerdict = Awaited<ReturnType<typeof verify>>['verdict'];

/** Once ERRORs are read: `retry` is a verifier leaf worth one relaunch; `commit` the one judged (red's landing). */
export type VerifyEnd =
  | {
      kind: 'verdict';
      verdict: Exclude<VerifyVerdict, 'ERROR'>;
      reason: string;
      commit: string | null;
      flaky?: string[];
    }
  | { kind: 'retry'; why: string }
  | { kind: 'dry'; dry: AgentDry; verifier: RoleAgent };

type Asked = { step: string; phase: Phase; env: NodeJS.ProcessEnv; base?: string; passedTrees: readonly string[] };

async function askVerifier(
  ctx: RunContext,
  agent: string,
  { step, phase, env, base, passedTrees }: Asked,
): ReturnType<typeof verify> {
  // Emptied as the seed's `2> verdict-PHASE.err` would, then appended by every suite run: none reaches the narration.
  const suiteLog = ctx.paths.err(`verdict-${phase}`);
  writeFileSync(suiteLog, '');
  try {
    return await verify({
      phase,
      step,
      cwd: ctx.root,
      env,
      issue: ctx.issue,
      agent,
      agentsFile: ctx.setup.agents.registry.file ?? undefined,
      base,
      tracker: ctx.setup.tracker,
      suiteLog,
      testFiles: ctx.setup.effective.tests,
      passedTrees: phase === 'red' ? passedTrees : undefined,
      head: phase === 'red' ? undefined : await ctx.heads.sha(),
      preflight: false,
      sandbox: ctx.setup.sandbox.bwrap === null ? 'off' : 'on',
      testNetwork: ctx.setup.sandbox.testNetwork,
    });
  } catch (error) {
    if (error instanceof LeapError && /is not installed/.test(error.message))
      throw new Bail('agent-missing', `The verifier ${error.message.replace(/^agent /, '')}`);
    if (error instanceof SuiteLimitError) throw suiteLimitBail(ctx, error);
    throw error;
  }
}

/** Writes verify-PHASE.reason and verdict-PHASE.exit as the seed's launch line did; a bail carries the verdict. */
export async function runVerification(
  ctx: RunContext,
  step: string,
  phase: Phase,
  attempt: number,
  base: string | undefined,
  where: string,
  developerFamily: string | undefined,
  passedTrees: readonly string[],
): Promise<Launched<VerifyEnd>> {
  await ctx.checkStop(where);
  const offset = eventsSize(ctx);
  const verifier = agentFor(ctx, 'verifier', developerFamily);
  const env = leafEnv(ctx, step, phase, attempt);
  // A refactor's tree (all staged): once it passes, the next step's red need not run the suite on it again.
  const tree = phase === 'refactor' ? await ctx.git.out(['write-tree']) : null;
  const result = await askVerifier(ctx, verifier.name, { step, phase, env, base, passedTrees });
  const leaf = `verify-${phase}`;
  ctx.heads.invalidate();
  // A refactor's tree passed only when an agent was asked: ground truth held first.
  const got = gather({
    verdicts: [{ step, phase, verdict: result.verdict, reason: result.reason }],
    leaves: result.leaf === undefined ? 0 : 1,
    passedTrees: tree !== null && result.decidedBy === 'agent' ? [tree] : [],
  });
  try {
    if (result.leaf !== undefined && !hasUsageSince(ctx.paths.events, offset, leaf))
      appendUsage(ctx.paths.events, leaf, verifier.agent, result.leaf.answer?.usage, ctx.context(step));
    writeFileSync(ctx.paths.dir + `/verify-${phase}.reason`, `${result.reason}\n`);
    writeExitFile(ctx.paths.exit(`verdict-${phase}`), { code: result.code, status: 'exited', leafCode: result.code });
    await ctx.say(`verdict ${phase}: ${result.verdict}: ${result.reason}`);
    if (result.decidedBy === 'agent') checkCost(ctx);
    if (result.verdict !== 'ERROR') {
      const flaky = result.flaky === undefined ? {} : { flaky: result.flaky };
      const commit = result.commit ?? null;
      return { kind: 'verdict', verdict: result.verdict, reason: result.reason, commit, ...flaky, gathered: got };
    }
    if (result.leaf !== undefined) {
      const words = onceEach([result.reason, leafWords(verifier, result.leaf)]);
      const end = classify(ctx, 'verifier', verifier, result.leaf, where, words);
      if (end?.kind === 'dry') return { kind: 'dry', dry: end.dry, verifier, gathered: got };
      if (end !== null) return { kind: 'retry', why: end.status, gathered: got };
    }
    return { kind: 'retry', why: `unreadable verdict: ${result.reason}`, gathered: got };
  } catch (error) {
    throw carrying(error, got);
  }
}
