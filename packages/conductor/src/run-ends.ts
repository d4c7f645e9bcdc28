// A run's ends (CONTRACT section 9): its result, exit code; done, its pull request; a stop; a bail's revert; --notify.
import { clearStop, orElse, type LedgerStep } from '@leap/core';
import { type Bail, type Gathered, type Stopped, bailClass } from './bail-causes.js';
import { RunContext, freshJournal, type RunBase, type RunProgress } from './conductor.js';
import { stepList } from './plan.js';
import { listWords, sameFamily } from './run-agents.js';
import { removeJournal } from './run-files.js';
import { definedOnly } from './run-options.js';
import type { TddRunEnd, TddRunResult } from './index.js';

const EXIT_CODES = { done: 0, bailed: 1, stopped: 3 } as const satisfies Record<TddRunResult['outcome'], number>;

/** Section 9's exit code of an outcome; bad input (2) is a UsageError thrown before anything runs. */
export const exitCode = (outcome: TddRunResult['outcome']) => EXIT_CODES[outcome];

type End = Pick<TddRunEnd, 'outcome' | 'bail' | 'stoppedAt' | 'pullRequest'>;

export async function buildResult(run: RunBase, gathered: Gathered, end: End, started: number): Promise<TddRunEnd> {
  // No ledger yet: a bail in preflight or planning.
  const steps = orElse(() => run.readLedger().steps.map((s) => ({ title: s.title, state: s.state })), []);
  let commits: TddRunEnd['commits'] = [];
  if (run instanceof RunContext && run.startHead !== '') {
    const range = `${run.startHead}..HEAD`;
    const log = await run.git(['log', '--reverse', '--format=%H%x09%s', range], { allowFailure: true });
    commits = log.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => ({ sha: l.slice(0, l.indexOf('\t')), subject: l.slice(l.indexOf('\t') + 1) }));
  }
  const ms = Math.round(performance.now() - started);
  return definedOnly({ ...end, steps, commits, verdicts: [...gathered.verdicts], leaves: gathered.leaves, ms });
}

/** End the run at a stop: record it, consume the request, say where. `inFlight`: the step the run was in, or null. */
export async function endStopped(run: RunBase, stop: Stopped, inFlight: LedgerStep | null): Promise<string> {
  const mode = stop.mode === 'signal' ? null : (stop.mode as 'at-ledger' | 'at-leaf' | 'now' | 'unreadable');
  const step = inFlight?.title ?? null;
  run.event('stop', { mode, action: 'honoured' }, step);
  if (mode !== null) {
    clearStop(run.paths.stop);
    run.event('stop', { mode, action: 'cleared' }, step);
  }
  await run.say(`stopped (${stop.mode}) ${stop.where}. Run \`leap tdd run --issue ${run.issue}\` again to resume.`);
  return stop.where;
}

/** Keep finished steps, preserve and revert the half-done `inFlight` (as the ledger had it when reached), narrate. */
export async function endBailed(run: RunBase, progress: RunProgress, bail: Bail, inFlight: LedgerStep | null) {
  let narration = bail.narration;
  // A dirty tree is the person's: it is said, never preserved or reverted.
  const step = bail.bailCause === 'dirty-tree' ? null : inFlight;
  const cls = bailClass(bail.bailCause);
  // A system failure at green is no verdict on the verified red: its commit stays, and a rerun resumes at green.
  const j = progress.journal;
  const keepRed =
    (cls === 'system' || bail.keepCommits) &&
    step !== null &&
    j.step === step.title &&
    j.phase === 'green' &&
    j.phase_base !== null;
  if (step !== null && run instanceof RunContext) {
    try {
      if (
        !keepRed &&
        !bail.keepCommits &&
        step.state === 'todo' &&
        (await run.heads.subject()) === `red: ${step.title}`
      )
        await run.git(['reset', '-q', '--soft', 'HEAD~1']);
      const { preserveAttempt } = await import('@leap/ledger');
      const kept = await preserveAttempt({ issue: run.issue, step: step.title, cwd: run.root, env: run.env });
      run.heads.invalidate();
      const files = `${kept.paths.length} file${kept.paths.length === 1 ? '' : 's'}`;
      const reverted = 'and reverted; finished steps keep their commits.';
      if (kept.ref !== null) narration += `\nThe half-done step's work is kept in ${kept.ref} (${files}) ${reverted}`;
    } catch (error) {
      narration += `\nThe half-done step could not be preserved: ${(error as Error).message}`;
    }
  }
  progress.journal = freshJournal(
    j,
    run instanceof RunContext ? run.testCmd : '',
    keepRed ? { step: j.step, phase: 'green', phase_base: j.phase_base } : {},
  );
  progress.saveJournal();
  if (keepRed) narration += `\nThe verified red commit of "${step.title}" stays: running again resumes at its green.`;
  run.event('bail', { cause: bail.bailCause, class: cls, message: narration }, inFlight?.title ?? null);
  await run.say(`${narration}\nbail: ${bail.bailCause} (${cls})`);
  return { cause: bail.bailCause, class: cls, narration };
}

// Every step done: open criteria ticked on a remote tracker, then the draft pull request onto `base` (null: default).
export async function finish(ctx: RunContext, base: string | null): Promise<{ url: string }> {
  const { setup } = ctx;
  const ledger = ctx.readLedger();
  const body = [
    `Resolves issue #${ctx.issue}: ${setup.issueData.title}`,
    '',
    ...stepList(ledger.steps),
    '',
    `Every step went red, green and refactor, each verified blind by ${listWords(setup.agents.lists.verifier)}` +
      `${sameFamily(setup.agents)}; the ledger is ${ctx.ledgerRel}.`,
  ].join('\n');
  // A remote issue is ticked after each refactor commit; a run killed in between gets its ticks here.
  if (ctx.issueFileRel() === null) {
    await ctx.tickCriteria((k) => {
      const own = ledger.steps.filter((s) => s.criterion === k);
      return own.length > 0 && own.every((s) => s.state === 'done');
    }, null);
  }
  const pr = await setup.tracker.openDraftPullRequest({
    title: `${setup.issueData.title} (issue #${ctx.issue})`,
    body,
    branch: ctx.branch,
    base: base ?? undefined,
    issue: ctx.issue,
  });
  removeJournal(ctx.paths, ctx.issue);
  const steps = `${ledger.steps.length} step${ledger.steps.length === 1 ? '' : 's'}`;
  await ctx.say(`done: ${steps} of issue ${ctx.issue}, every criterion ticked; draft pull request ${pr.url}`);
  return pr;
}

// `--notify CMD` (CONTRACT section 14): the user's, so unsandboxed; its failure is narrated, never the result.
const EVENTS = { done: 'done', stopped: 'stop', bailed: 'bail' } as const;

export async function notifyEnd(run: RunBase, result: TddRunEnd): Promise<TddRunEnd> {
  const argv = run.setup.effective.notify;
  if (argv === undefined || argv.length === 0) return result;
  const event = result.bail?.cause === 'cost-budget' ? 'cost-budget' : EVENTS[result.outcome];
  const { runNotify } = await import('@leap/supervise');
  const payload = {
    issue: run.issue,
    title: run.setup.issueData.title,
    branch: run.branch,
    outcome: result.outcome,
    code: exitCode(result.outcome),
    ...(result.bail === undefined ? {} : { bail: result.bail }),
    ...(result.stoppedAt === undefined ? {} : { stopped_at: result.stoppedAt }),
    ...(result.pullRequest === undefined ? {} : { pull_request: result.pullRequest.url }),
    steps: result.steps.length,
    commits: result.commits.length,
    ms: Math.round(result.ms),
    ts: new Date().toISOString(),
  };
  const told = await runNotify(argv, event, payload, { cwd: run.setup.root, env: run.env });
  const said =
    told.problem === null ? `${event} told (leaf ${told.leaf})` : `${told.problem} (the run's result stands)`;
  run.setup.warn(`notify: ${said}`);
  return result;
}
