// A phase's verification: the verify library asked with the run's verifier, its verdict written as the seed's was.
import { writeFileSync } from 'node:fs';
import { LeapError, type AgentDry } from '@leap/core';
import { writeExitFile } from '@leap/supervise';
import { SuiteLimitError, verify } from '@leap/verify';
import { Bail, carrying, gather } from './bail-causes.js';
import { suiteLimitBail } from './watch-mode.js';
import { type PhaseRun, phaseWhere } from './develop-leaf.js';
import { agentFor, checkCost, classify, eventsSize, leafEnv, leafWords, onceEach, recordUsage } from './launch.js';
import type { Launched } from './launch.js';
import type { RoleAgent } from './run-agents.js';

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

async function askVerifier(p: PhaseRun, agent: string, env: NodeJS.ProcessEnv, passedTrees: readonly string[]) {
  const { ctx, step, phase, progress } = p;
  // Emptied as the seed's `2> verdict-PHASE.err` would, then appended by every suite run: none reaches the narration.
  const suiteLog = ctx.paths.err(`verdict-${phase}`);
  writeFileSync(suiteLog, '');
  try {
    return await verify({
      phase,
      step: step.title,
      cwd: ctx.root,
      env,
      issue: ctx.issue,
      agent,
      agentsFile: ctx.setup.agents.registry.file ?? undefined,
      base: phase === 'refactor' ? (progress.journal.phase_base as string) : undefined,
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
export async function runVerification(p: PhaseRun, passedTrees: readonly string[]): Promise<Launched<VerifyEnd>> {
  const { ctx, phase } = p;
  const { title: step } = p.step;
  const where = phaseWhere(p, `verify-${phase}`);
  await ctx.checkStop(where);
  const offset = eventsSize(ctx);
  const verifier = agentFor(ctx, 'verifier', p.progress.journal.developer_family);
  const env = leafEnv(ctx, step, phase, p.progress.journal.attempt);
  // A refactor's tree (all staged): once it passes, the next step's red need not run the suite on it again.
  const tree = phase === 'refactor' ? await ctx.git.out(['write-tree']) : null;
  const result = await askVerifier(p, verifier.name, env, passedTrees);
  const leaf = `verify-${phase}`;
  ctx.heads.invalidate();
  // A refactor's tree passed only when an agent was asked: ground truth held first.
  const got = gather({
    verdicts: [{ step, phase, verdict: result.verdict, reason: result.reason }],
    leaves: result.leaf === undefined ? 0 : 1,
    passedTrees: tree !== null && result.decidedBy === 'agent' ? [tree] : [],
  });
  try {
    if (result.leaf !== undefined) recordUsage(ctx, offset, leaf, verifier.agent, result.leaf.answer?.usage, step);
    writeFileSync(`${ctx.paths.dir}/verify-${phase}.reason`, `${result.reason}\n`);
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
