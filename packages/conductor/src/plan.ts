// `--plan FILE` or a planning leaf's answer becomes the ledger, committed as `plan: issue N` (CONTRACT section 9).
import { existsSync, readFileSync } from 'node:fs';
import { FileFormatError, UsageError, type ParsedPlan, type TrackerIssue } from '@leap/core';
import { parsePlan } from '@leap/core/ledger';
import { Bail, NOTHING, carrying, merge, type Gathered } from './bail-causes.js';
import type { RunContext } from './conductor.js';
import { agentFor, fallOver, launchAgentLeaf } from './launch.js';
import { commitOrBail, dirtyPaths, snapshotStateFolder, undoStateEdits } from './develop-leaf.js';
import { plannerPrompt } from './prompts.js';

export const stepList = (steps: readonly { title: string; criterion: number | null }[]): string[] =>
  steps.map((s, i) => `${i + 1}. ${s.title}${s.criterion === null ? '' : ` (criterion ${s.criterion})`}`);

/** Why a plan does not cover the issue (a criterion without a step, a step naming no criterion of it), or null. */
function planCoverageProblem(plan: ParsedPlan, issue: TrackerIssue): string | null {
  const count = issue.criteria.length;
  const beyond = plan.steps.find((s) => s.criterion !== null && s.criterion > count);
  if (beyond !== undefined)
    return (
      `step ${JSON.stringify(beyond.title)} names criterion ${beyond.criterion}, ` +
      `but issue ${issue.number} has ${count} acceptance criteri${count === 1 ? 'on' : 'a'}`
    );
  const missing = issue.criteria.filter((c) => !c.checked && !plan.steps.some((s) => s.criterion === c.index));
  if (missing.length > 0)
    return (
      `no step covers criteri${missing.length === 1 ? 'on' : 'a'} ${missing.map((c) => c.index).join(', ')} ` +
      `of issue ${issue.number} (end a step line with "(criterion K)")`
    );
  return null;
}

/** `--plan FILE`, before anything is touched: a UsageError or FileFormatError naming the file and line. */
export function readPlan(file: string, issue: TrackerIssue): { text: string; file: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new UsageError(`cannot read the plan file ${file}: ${(cause as Error).message}`, { cause });
  }
  const problem = planCoverageProblem(parsePlan(text, file), issue);
  if (problem !== null) throw new UsageError(`${file}: ${problem}`);
  return { text, file };
}

/** The ledger when HEAD has none; `treeChecked`: preflight found the tree clean; a bail carries what it got. */
export async function ensurePlan(ctx: RunContext, treeChecked: boolean): Promise<Gathered> {
  const inHead = (await ctx.git(['cat-file', '-e', `HEAD:${ctx.ledgerRel}`], { allowFailure: true })).code === 0;
  if (inHead) {
    // Deleted from the working copy (by hand, a clean-up script): HEAD's, which the run committed, is the ledger.
    if (!existsSync(ctx.ledgerFile)) {
      await ctx.git(['checkout', '-q', 'HEAD', '--', ctx.ledgerRel]);
      await ctx.say(`the ledger ${ctx.ledgerRel} was missing from the working copy; restored from HEAD`);
    }
    return NOTHING;
  }
  const given = ctx.setup.planText;
  const planned = given === null ? await askPlanner(ctx) : { text: given.text, source: given.file, gathered: NOTHING };
  try {
    // With a plan file and a tree this process found clean, no leaf ran that could have changed it.
    return merge(planned.gathered, await commitPlan(ctx, planned.text, planned.source, given !== null && treeChecked));
  } catch (error) {
    throw carrying(error, planned.gathered);
  }
}

async function askPlanner(ctx: RunContext): Promise<{ text: string; source: string; gathered: Gathered }> {
  let got = NOTHING;
  try {
    let planner = agentFor(ctx, 'planner');
    const named = planner.name === 'planner' ? '' : ` ${planner.name}`;
    await ctx.say(`plan: the planner${named} turns issue ${ctx.issue}'s acceptance criteria into steps`);
    const before = await snapshotStateFolder(ctx);
    const prompt = plannerPrompt(ctx.setup.issueData);
    const launch = () =>
      launchAgentLeaf(ctx, 'plan', 'planner', planner, prompt, null, 'plan', 1, 'before the plan leaf');
    let end = await launch();
    got = merge(got, end.gathered);
    while (end.kind === 'dry') {
      await undoStateEdits(ctx, undefined, before);
      planner = await fallOver(ctx, 'planner', planner, 'plan', end.dry, null);
      end = await launch();
      got = merge(got, end.gathered);
    }
    await undoStateEdits(ctx, undefined, before);
    if (end.kind === 'retry') throw new Bail(end.status, `The planning leaf was ${end.status}.`);
    return { text: end.result.answer?.text ?? '', source: "<the planner's answer>", gathered: got };
  } catch (error) {
    throw carrying(error, got);
  }
}

// `clean`: no leaf can have changed the tree (a plan file, a tree found clean): the planner's changes are not sought.
async function commitPlan(ctx: RunContext, text: string, source: string, clean: boolean): Promise<Gathered> {
  let plan: ParsedPlan;
  try {
    plan = parsePlan(text, source);
  } catch (error) {
    if (error instanceof FileFormatError)
      throw new Bail('agent-failed', `The planner's answer is not a plan: ${error.message}`);
    throw error;
  }
  const problem = planCoverageProblem(plan, ctx.setup.issueData);
  if (problem !== null) throw new Bail('agent-failed', `The planner's plan does not cover the issue: ${problem}`);
  const { initLedger, preserveAttempt } = await import('@leap/ledger');
  const { issue, root: cwd, env } = ctx;
  await initLedger({ issue, plan: Buffer.from(text), planFile: source, force: true, cwd, env });
  if (!clean && (await dirtyPaths(ctx)).length > 0) {
    const kept = await preserveAttempt({ issue, step: plan.steps[0]?.title ?? '', cwd, env });
    await ctx.say(`the planner changed files; they do not count and are kept in ${kept.ref}`);
  }
  const add = [ctx.ledgerRel];
  const gitignore = `${ctx.paths.dir}/.gitignore`;
  if (
    existsSync(gitignore) &&
    (await ctx.git(['check-ignore', '-q', '--', gitignore], { allowFailure: true })).code !== 0
  )
    add.push(gitignore);
  // An uncommitted issue file is the run's input: committed with the plan, by its own path.
  const issueRel = ctx.issueFileRel();
  if (issueRel !== null) {
    const status = await ctx.git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', issueRel]);
    if (status.stdout !== '') {
      add.push(issueRel);
      await ctx.say(`the issue file ${issueRel} was not committed as it is; the plan commit holds it`);
    }
  }
  await ctx.git(['add', '--', ...add]);
  const committed = await commitOrBail(ctx, ['commit', '-q', '-F', '-', '--', ...add], `plan: issue ${ctx.issue}`);
  const head = (await ctx.heads.sha()).slice(0, 12);
  const count = plan.steps.length;
  await ctx.say(`plan commit ${head}: ${count} step${count === 1 ? '' : 's'}\n${stepList(plan.steps).join('\n')}`);
  return committed;
}
