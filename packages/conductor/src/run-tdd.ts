// `leap tdd run --issue N` as a function: nothing is touched on bad input; then the lock, preflight and every step.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { readLockHolder, tryLock, type LedgerStep } from '@leap/core';
import { currentStep } from '@leap/core/ledger';
import { Bail, NOTHING, Stopped, gather, merge } from './bail-causes.js';
import { RunBase, RunContext, RunProgress, branchFromFiles, freshJournal, openRunGit } from './conductor.js';
import { buildResult, endBailed, endStopped, exitCode, finish, notifyEnd } from './run-ends.js';
import { chooseTestCommand, testCommandQuestion } from './detect-test-cmd.js';
import { limitsLine, passedTreesOfLog, runBaseline } from './watch-mode.js';
import { drivePhase } from './phases.js';
import { dirtyPaths } from './develop-leaf.js';
import type { Phase } from './prompts.js';
import { ensurePlan } from './plan.js';
import { listWords, missingAgent, sameFamily } from './run-agents.js';
import { agentLeafSandbox } from './leaf-sandboxes.js';
import { checkInput, describeOptions, type ConductorSetup } from './run-options.js';
import { ensureStateGitignore, ensureTimeoutFile, lockedError, pinSkillCommit, readJournal } from './run-files.js';
import type { RunJournal } from './run-files.js';
import type { TddRunEnd, TddRunOptions, TddRunResult } from './index.js';

/** Drive issue N end to end (see the README). Bad input throws a UsageError (exit 2) before anything is touched. */
export async function runTdd(options: TddRunOptions): Promise<TddRunResult> {
  const started = performance.now();
  const base = new RunBase(await checkInput(options));
  const { paths, issue } = base;
  ensureStateGitignore(paths);
  const lockFile = paths.conductorLock(issue);
  const before = readLockHolder(lockFile);
  const lock = tryLock(lockFile, { issue: String(issue) });
  if (lock === null) throw lockedError(issue, before?.pid ?? readLockHolder(lockFile)?.pid, lockFile);
  const dead = before !== null && before.pid !== process.pid ? before.pid : null;
  const progress = new RunProgress(paths, issue);
  // Recorded first, so whatever ends this start (a bail in preflight too), a resume knows the options.
  progress.journal.options = base.setup.recorded;
  progress.saveJournal();
  try {
    const end = await conduct(base, progress, started, dead);
    return { code: exitCode(end.outcome), ...end };
  } finally {
    lock.release();
  }
}

async function conduct(base: RunBase, progress: RunProgress, started: number, dead: number | null): Promise<TddRunEnd> {
  let known: RunBase = base;
  let gathered = NOTHING;
  let inFlight: LedgerStep | null = null;
  const end = async (how: Parameters<typeof buildResult>[2]) =>
    notifyEnd(known, await buildResult(known, gathered, how, started));
  try {
    const { pre, found, treeChecked } = await preflight(base, dead);
    known = pre;
    const start = await startBranch(pre, found, progress);
    gathered = merge(gathered, start.gathered);
    const ctx = new RunContext(pre.setup, pre, start.head);
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
      const ledger = ctx.readLedger();
      const step = currentStep(ledger);
      if (step === null) break;
      const ledgerIndex = ledger.steps.findIndex((s) => s.title === step.title) + 1;
      const todo = step.state === 'todo';
      const mine = progress.journal.step === step.title;
      const redMade = todo && (await ctx.heads.subject()) === `red: ${step.title}`;
      if (todo && !mine && !redMade) {
        await ctx.checkBoundary(`at the start of step ${ledgerIndex} "${step.title}"`);
        ctx.event('mark', { name: 'step-start', anchor: step.title }, step.title);
      }
      inFlight = step;
      if (todo) {
        if (!(mine && progress.journal.phase === 'green' && redMade)) await drive(step, 'red', ledgerIndex);
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
    if (gathered.committed && known instanceof RunContext)
      await known.git(['maintenance', 'run', '--auto', '--quiet'], { allowFailure: true }).catch(() => undefined);
  }
}

// Preflight or resume, up to the pin: orphans ended, interrupted ticks finished, the tree and the agents checked.
async function preflight(base: RunBase, dead: number | null) {
  const { setup, paths } = base;
  const { git, heads } = openRunGit(base.root, setup.env);
  if (dead !== null) {
    const { endOrphanLeaves, findOrphanLeaves } = await import('@leap/supervise');
    const orphans = findOrphanLeaves(paths.dir, dead);
    const killed = await endOrphanLeaves(orphans);
    const ended = `ended ${killed} process${killed === 1 ? '' : 'es'} of ${orphans.map((o) => o.name).join(', ')}`;
    if (orphans.length > 0) setup.progress(`resuming after conductor ${dead} died: ${ended}`);
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
  const shown = `${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? ', ...' : ''}`;
  const clean =
    'the run commits everything it stages, so it starts only from a clean tree. Commit or stash these changes';
  if (dirty.length > 0)
    throw new Bail('dirty-tree', `The working tree is not clean (${shown}): ${clean}, then run again.`);
  if (choice.kind !== 'found') throw new Bail('needs-user', testCommandQuestion(choice, base.issue));
  const planned =
    setup.planText !== null ||
    (await git(['cat-file', '-e', `HEAD:${base.ledgerRel}`], { allowFailure: true })).code === 0;
  await checkAgents(base, planned);
  const { pin, movedFrom } = pinSkillCommit(paths, base.issue, setup.pin);
  const env = { ...setup.env, VERI_SKILL_COMMIT: pin };
  const pre = new RunContext(setup, { git, heads, testCmd: choice.command, skillCommit: pin, env });
  if (movedFrom !== null) {
    pre.event('mark', { name: 'skill-commit-moved', anchor: movedFrom, from: movedFrom, to: pin }, null);
    const moved = `toolchain revision moved (VERI_NEW_SKILL=1): the run was pinned at ${movedFrom}`;
    await pre.say(`${moved}, its events from here on carry ${pin}`);
  }
  ensureTimeoutFile(paths, base.issue);
  return { pre, found: { current, exists, journal }, treeChecked };
}

// Every agent a role may fall over to is checked now: one that cannot run is found before anything is spent.
async function checkAgents(base: RunBase, planned: boolean): Promise<void> {
  const { setup } = base;
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
    roles.map(([role, chosen]) => {
      const sandbox = agentLeafSandbox(base, role, chosen.agent);
      return checkAgentReady(chosen.agent, { role, cwd: base.root }, setup.env, undefined, sandbox);
    }),
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
async function startBranch(pre: RunContext, { current, exists, journal }: Found, progress: RunProgress) {
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
  const resuming = `issue ${pre.issue}: resuming on ${pre.branch} at ${startHead.slice(0, 12)}`;
  const started = options === '' ? '' : ` with the options it was started with: ${options}`;
  const again = setup.replaced.map((line) => `option given again: ${line}`);
  await pre.say([`${resuming}${started}`, ...again, limitsLine(pre)].join('\n'));
  return { head: startHead, gathered: passed };
}

// `developer claude`, or `developer` alone for an agent named after its role (never "developer developer").
function roleName(setup: ConductorSetup, role: 'developer' | 'verifier'): string {
  const name = listWords(setup.agents.lists[role]);
  return name === role ? role : `${role} ${name}`;
}
