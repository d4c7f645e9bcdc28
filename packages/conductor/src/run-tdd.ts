// `leap tdd run --issue N` as a function: nothing is touched on bad input; then the lock, preflight and every step.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { readLockHolder, statePaths, tryLock, type LedgerStep } from '@leap/core';
import { currentStep } from '@leap/core/ledger';
import { Bail, Stopped } from './bail-causes.js';
import { Preflighted, RunBase, RunContext, RunProgress, freshJournal, openRunGit } from './conductor.js';
import type { ConductorSetup } from './conductor.js';
import { buildResult, endBailed, endStopped, finish } from './run-ends.js';
import { checkInput } from './run-input.js';
import { chooseTestCommand, testCommandQuestion } from './detect-test-cmd.js';
import { passedTreesOfLog, runBaseline } from './baseline.js';
import { branchFromFiles } from './git.js';
import { limitsLine } from './launch.js';
import { drivePhase } from './phases.js';
import { dirtyPaths } from './state-folder.js';
import { NOTHING, gather, merge, type Gathered } from './gathered.js';
import type { Phase } from './prompts.js';
import { ensurePlan } from './plan.js';
import { listWords, missingAgent, sameFamily } from './run-agents.js';
import { agentLeafSandbox } from './leaf-sandboxes.js';
import { describeOptions } from './run-options.js';
import {
  lockedError,
  ensureStateGitignore,
  ensureTimeoutFile,
  pinSkillCommit,
  readJournal,
  type RunJournal,
} from './run-files.js';
import { notifyEnd } from './notify-end.js';
import { exitCode } from './exit-codes.js';
import type { TddRunEnd, TddRunOptions, TddRunResult } from './types.js';

/** Drive issue N end to end (see the README). Bad input throws a UsageError (exit 2) before anything is touched. */
export async function runTdd(options: TddRunOptions): Promise<TddRunResult> {
  const started = performance.now();
  const setup = await checkInput(options);
  const paths = statePaths(setup.stateDir);
  ensureStateGitignore(paths);
  const lockFile = paths.conductorLock(setup.issue);
  const before = readLockHolder(lockFile);
  const lock = tryLock(lockFile, { issue: String(setup.issue) });
  if (lock === null) throw lockedError(setup.issue, before?.pid ?? readLockHolder(lockFile)?.pid, lockFile);
  setup.deadConductor = before !== null && before.pid !== process.pid ? before.pid : null;
  const base = new RunBase(setup);
  const progress = new RunProgress(base.paths, setup.issue);
  // Recorded first, so whatever ends this start (a bail in preflight too), a resume knows the options.
  progress.journal.options = setup.recorded;
  progress.saveJournal();
  try {
    const end = await conduct(base, progress, started);
    return { code: exitCode(end.outcome), ...end };
  } finally {
    lock.release();
  }
}

async function conduct(base: RunBase, progress: RunProgress, started: number): Promise<TddRunEnd> {
  let known: RunBase = base;
  let gathered = NOTHING;
  let inFlight: LedgerStep | null = null;
  const end = async (how: Parameters<typeof buildResult>[2]) =>
    notifyEnd(known, await buildResult(known, gathered, how, started));
  try {
    const { pre, found, treeChecked } = await preflight(base);
    known = pre;
    const start = await startBranch(pre, found, progress);
    gathered = merge(gathered, start.gathered);
    const ctx = new RunContext(pre, start.head);
    known = ctx;
    gathered = merge(gathered, await ensurePlan(ctx, treeChecked));
    let checked = treeChecked;
    const drive = async (step: LedgerStep, phase: Phase, index: number): Promise<void> => {
      const run = { ctx, progress, step, phase, index };
      const end = await drivePhase(run, { passedTrees: gathered.passedTrees, treeChecked: checked });
      gathered = merge(gathered, end.gathered);
      checked = end.treeChecked;
    };
    for (;;) {
      const step = currentStep(ctx.readLedger());
      if (step === null) break;
      const ledgerIndex = ctx.readLedger().steps.findIndex((s) => s.title === step.title) + 1;
      const fresh =
        step.state === 'todo' &&
        progress.journal.step !== step.title &&
        (await ctx.heads.subject()) !== `red: ${step.title}`;
      if (fresh) {
        await ctx.checkBoundary(`at the start of step ${ledgerIndex} "${step.title}"`);
        ctx.event('mark', { name: 'step-start', anchor: step.title }, step.title);
      }
      inFlight = step;
      if (step.state === 'todo') {
        const inGreen =
          progress.journal.step === step.title &&
          progress.journal.phase === 'green' &&
          (await ctx.heads.subject()) === `red: ${step.title}`;
        if (!inGreen) await drive(step, 'red', ledgerIndex);
        await drive(step, 'green', ledgerIndex);
      }
      await drive({ ...step, state: 'refactor-pending' }, 'refactor', ledgerIndex);
      inFlight = null;
    }
    return await end({ outcome: 'done', pullRequest: await finish(ctx, progress.journal.base) });
  } catch (error) {
    if (!(error instanceof Stopped || error instanceof Bail)) throw error;
    gathered = merge(gathered, error.gathered);
    if (error instanceof Stopped) {
      return await end({ outcome: 'stopped', stoppedAt: await endStopped(known, error, inFlight) });
    }
    return await end({ outcome: 'bailed', bail: await endBailed(known, progress, error, inFlight) });
  } finally {
    // What git commit would have started after each of the run's commits, once (gc --auto, when due).
    if (gathered.committed && known instanceof Preflighted)
      await known.git(['maintenance', 'run', '--auto', '--quiet'], { allowFailure: true }).catch(() => undefined);
  }
}

// Preflight or resume, up to the pin: orphans ended, interrupted ticks finished, the tree and the agents checked.
async function preflight(base: RunBase): Promise<{ pre: Preflighted; found: Found; treeChecked: boolean }> {
  const { setup, paths } = base;
  const { git, heads } = await openRunGit(base.root, setup.env);
  if (setup.deadConductor !== null) {
    const { endOrphanLeaves, findOrphanLeaves } = await import('@leap/supervise');
    const orphans = findOrphanLeaves(paths.dir, setup.deadConductor);
    const killed = await endOrphanLeaves(orphans);
    if (orphans.length > 0)
      setup.progress(
        `resuming after conductor ${setup.deadConductor} died: ended ${killed} process${killed === 1 ? '' : 'es'} ` +
          `of ${orphans.map((o) => o.name).join(', ')}`,
      );
    rmSync(join(base.root, '.git', 'index.lock'), { force: true });
    await git(['worktree', 'prune'], { allowFailure: true });
  }
  const { recoverLedger } = await import('@leap/ledger');
  await recoverLedger(paths.dir, { env: setup.env });
  const known = branchFromFiles(base.root, setup.env, base.branch);
  const current =
    known?.current ?? (await git(['symbolic-ref', '--short', '-q', 'HEAD'], { allowFailure: true })).stdout.trim();
  const exists =
    known?.exists ??
    (await git(['rev-parse', '--verify', '-q', `refs/heads/${base.branch}`], { allowFailure: true })).code === 0;
  const journal = readJournal(paths, base.issue);
  const choice = chooseTestCommand(base.root, setup.effective.testCmd ?? (journal?.test_cmd || undefined), setup.env);
  // A first start, or one off the branch, checks the tree now; a resume on the branch leaves it to the first phase.
  const treeChecked = !exists || current !== base.branch;
  const dirty = treeChecked ? await dirtyPaths({ git, root: base.root, paths }) : [];
  if (dirty.length > 0) {
    throw new Bail(
      'dirty-tree',
      `The working tree is not clean (${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? ', ...' : ''}): ` +
        'the run commits everything it stages, so it starts only from a clean tree. ' +
        'Commit or stash these changes, then run again.',
    );
  }
  if (choice.kind !== 'found') throw new Bail('needs-user', testCommandQuestion(choice, base.issue));
  const planned =
    setup.planText !== null ||
    (await git(['cat-file', '-e', `HEAD:${base.ledgerRel}`], { allowFailure: true })).code === 0;
  await checkAgents(base, planned);
  const { pin, movedFrom } = pinSkillCommit(paths, base.issue, setup.pin);
  const env = { ...setup.env, VERI_SKILL_COMMIT: pin };
  const pre = new Preflighted(setup, { git, heads, testCmd: choice.command, skillCommit: pin, env });
  if (movedFrom !== null) {
    pre.event('mark', { name: 'skill-commit-moved', anchor: movedFrom, from: movedFrom, to: pin }, null);
    await pre.say(
      `toolchain revision moved (VERI_NEW_SKILL=1): the run was pinned at ${movedFrom}, ` +
        `its events from here on carry ${pin}`,
    );
  }
  ensureTimeoutFile(paths, base.issue);
  return { pre, found: { current, exists, journal }, treeChecked };
}

// Every agent a role may fall over to is checked now: one that cannot run is found before anything is spent.
async function checkAgents(base: RunBase, planned: boolean): Promise<void> {
  const { setup, paths } = base;
  const { lists } = setup.agents;
  const roles = (['developer', 'verifier', ...(planned ? [] : ['planner' as const])] as const).flatMap((role) =>
    lists[role].map((chosen) => [role, chosen] as const),
  );
  for (const [role, chosen] of roles) {
    const missing = missingAgent(role, chosen, base.root, setup.env);
    if (missing !== null) throw new Bail('agent-missing', missing);
  }
  const { checkAgentReady } = await import('@leap/verify');
  // Once per run, all at once, each in the sandbox its leaves will have; the first failure in role order bails.
  const answers = await Promise.all(
    roles.map(([role, chosen]) =>
      checkAgentReady(
        chosen.agent,
        { role, cwd: base.root },
        setup.env,
        undefined,
        agentLeafSandbox(setup.sandbox, role, chosen.agent, base.root, paths.dir, setup.env),
      ),
    ),
  );
  for (const [i, ready] of answers.entries())
    if (!ready.ready)
      throw new Bail(
        ready.failureKind === 'missing' ? 'agent-missing' : 'agent-failed',
        `The ${roles[i]![0]}: ${ready.failure}`,
      );
}

/** `current`: the branch HEAD is on ('' detached). */
type Found = { current: string; exists: boolean; journal: RunJournal | null };

// A first run's branch is made after the baseline; a resume's is checked out, its passed trees read from the log.
async function startBranch(
  pre: Preflighted,
  { current, exists, journal }: Found,
  progress: RunProgress,
): Promise<{ head: string; gathered: Gathered }> {
  const { setup, paths, git } = pre;
  if (!exists) {
    await runBaseline(pre, current || 'HEAD');
    ensureStateGitignore(paths);
    const startHead = await pre.heads.sha();
    const passed = gather({ passedTrees: [await git.out(['rev-parse', 'HEAD^{tree}'])] });
    await git(['checkout', '-q', '-b', pre.branch]);
    progress.journal = freshJournal(progress.journal, pre.testCmd, { base: current === '' ? null : current });
    progress.saveJournal();
    await pre.say(
      `issue ${pre.issue}: ${setup.issueData.title}\nbranch ${pre.branch} from ${current || startHead.slice(0, 12)}; ` +
        `tests: \`${pre.testCmd}\`; ${roleName(setup, 'developer')}, ${roleName(setup, 'verifier')}` +
        `${sameFamily(setup.agents)}\n${limitsLine(pre)}`,
    );
    return { head: startHead, gathered: passed };
  }
  if (current !== pre.branch) await git(['checkout', '-q', pre.branch]);
  const startHead = await pre.heads.sha();
  const passed = gather({ passedTrees: await passedTreesOfLog(pre) });
  progress.journal = journal ?? freshJournal(progress.journal, pre.testCmd);
  progress.journal.pid = process.pid;
  progress.journal.test_cmd = pre.testCmd;
  progress.saveJournal();
  const options = describeOptions(setup.recorded);
  await pre.say(
    [
      `issue ${pre.issue}: resuming on ${pre.branch} at ${startHead.slice(0, 12)}` +
        (options === '' ? '' : ` with the options it was started with: ${options}`),
      ...setup.replaced.map((line) => `option given again: ${line}`),
      limitsLine(pre),
    ].join('\n'),
  );
  return { head: startHead, gathered: passed };
}

// `developer claude`, or `developer` alone for an agent named after its role (never "developer developer").
function roleName(setup: ConductorSetup, role: 'developer' | 'verifier'): string {
  const name = listWords(setup.agents.lists[role]);
  return name === role ? role : `${role} ${name}`;
}
