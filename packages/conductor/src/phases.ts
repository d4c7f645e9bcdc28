// A phase's stages (develop, collect, verify, land), each journaled first: docs/decisions/conductor-resume.md.
import { InternalError, type LedgerStep } from '@leap/core';
import { Bail, NOTHING, carrying, gather, merge, type Gathered } from './bail-causes.js';
import { GIT_FAILURE_EXIT, freshJournal, type RunContext } from './conductor.js';
import { fallOver } from './launch.js';
import { runVerification } from './verification.js';
import { type PhaseRun, blockedBail, collect, developLeaf, dirtyPaths, leafWork, resumeLeaf } from './develop-leaf.js';
import { stagedChanges } from './develop-leaf.js';
import type { LeafActivity } from './user-writes.js';

export type PhaseStart = { passedTrees: readonly string[]; treeChecked: boolean };
export type PhaseEnd = { gathered: Gathered; treeChecked: boolean };

/** From wherever the journal and git say `phase` stands to its landing; a bail or stop carries what it gathered. */
export async function drivePhase(p: PhaseRun, start: PhaseStart): Promise<PhaseEnd> {
  const { journal: j, treeChecked } = await alignJournal(p, start.treeChecked);
  // The commit this process's PASS judged: red's landing (null on a resume at passed).
  let verified: string | null = null;
  let activity: LeafActivity | null = null;
  let got = NOTHING;
  try {
    for (;;) {
      if (j.stage === 'leaf') {
        activity = await resumeLeaf(p);
      } else if (j.stage === 'ready') {
        const developed = await developLeaf(p);
        got = merge(got, developed.gathered);
        activity = developed.activity;
      } else if (j.stage === 'developed') {
        got = merge(got, await collect(p, leafWork(p.ctx, j, activity)));
        j.stage = 'verifying';
        p.progress.saveJournal();
      } else if (j.stage === 'verifying') {
        const verdict = await verifyOnce(p, start);
        got = merge(got, verdict.gathered);
        verified = verdict.verified;
      } else {
        await land(p, verified);
        return { gathered: got, treeChecked };
      }
    }
  } catch (error) {
    throw carrying(error, got);
  }
}

async function verifyOnce(p: PhaseRun, start: PhaseStart): Promise<{ gathered: Gathered; verified: string | null }> {
  const { ctx, progress, step, phase, index } = p;
  const j = progress.journal;
  const base = j.phase_base as string;
  // Green may change no test file present at the red commit (refactor's ground truth checks the same in verify).
  const touched = phase === 'green' ? await testFilesChanged(ctx, base) : [];
  const red = touched.length > 0 ? `the red commit ${base.slice(0, 12)}` : '';
  const ground = `ground truth: the green phase changed or removed test files present at ${red}: ${touched.join(', ')}`;
  const end = touched.length > 0 ? await ownReject(p, ground) : await runVerification(p, start.passedTrees);
  let verified: string | null = null;
  try {
    if (end.kind === 'dry') {
      await fallOver(ctx, 'verifier', end.verifier, `verify-${phase}`, end.dry, step.title, j.developer_family);
    } else if (end.kind === 'retry') {
      const cause = end.why.startsWith('killed-') ? (end.why as 'killed-timeout') : 'agent-failed';
      const twice = `The verifier leaf verify-${phase} failed twice (${end.why}): relaunched once already.`;
      if (j.retried >= 1) throw new Bail(cause, twice);
      await ctx.say(`verify-${phase}: ${end.why}; relaunching it once`);
      j.retried++;
    } else if (end.verdict === 'PASS') {
      verified = end.commit;
      j.stage = 'passed';
    } else if (end.verdict === 'BLOCKED') {
      throw blockedBail(`The verifier of the ${phase} phase`, index, step, end.reason);
    } else {
      const { revisions } = ctx.setup;
      const spent = `(--revisions ${revisions})`;
      if (j.attempt - 1 >= revisions && end.verdict === 'flaky') {
        const flaky = `a test passed once and failed once on the same tree (${(end.flaky ?? []).join(', ')})`;
        const ask = 'Make it deterministic, or tell the run it is known to be flaky, then run again.';
        const left = `and no revision is left ${spent}. ${ask}`;
        throw new Bail('needs-user', `Step ${index} "${step.title}" is not ticked: ${flaky}, ${left}`);
      }
      if (j.attempt - 1 >= revisions) {
        const rejected = `The ${phase} phase of step ${index} "${step.title}" was rejected ${j.attempt} time`;
        const budget = `the revision budget ${spent} is spent. The verifier's last reason: ${end.reason}`;
        throw new Bail('revision-budget', `${rejected}${j.attempt === 1 ? '' : 's'}, and ${budget}`);
      }
      // A rejected red is taken back (its tests stay staged), so history keeps one red commit per step.
      if (phase === 'red') await ctx.git(['reset', '-q', '--soft', base]);
      j.attempt++;
      j.reason = end.reason;
      j.retried = 0;
      j.stage = 'ready';
    }
    progress.saveJournal();
  } catch (error) {
    throw carrying(error, end.gathered);
  }
  return { gathered: end.gathered, verified };
}

// The recorded journal when it is this phase's, else a fresh one whose stage git decides (a made red is verified).
async function alignJournal({ ctx, progress, step, phase }: PhaseRun, treeChecked: boolean) {
  const j = progress.journal;
  if (j.step === step.title && j.phase === phase) return { journal: j, treeChecked };
  const head = await ctx.heads.sha();
  const redDone = phase === 'red' && (await ctx.heads.subject()) === `red: ${step.title}`;
  // Only the first phase a process reaches can find changes it did not make: after that every change is its leaves'.
  const dirty = redDone || treeChecked ? [] : await dirtyPaths(ctx);
  const changes = `The working tree has changes this run did not make (${dirty.slice(0, 5).join(', ')})`;
  const at = `at step "${step.title}". Commit or remove them, then run again.`;
  if (dirty.length > 0) throw new Bail('dirty-tree', `${changes}, ${at}`);
  progress.journal = freshJournal(j, ctx.testCmd, {
    step: step.title,
    phase,
    stage: redDone ? 'verifying' : 'ready',
    phase_base: redDone ? await ctx.git.out(['rev-parse', 'HEAD~1']) : head,
  });
  progress.saveJournal();
  return { journal: progress.journal, treeChecked: true };
}

/** In a --tests file that also holds code (Rust's `src/*.rs`), only a change to its `#[cfg(test)]` items counts. */
async function testFilesChanged(ctx: RunContext, commit: string): Promise<string[]> {
  const changes = await stagedChanges(ctx, commit);
  const { isTestFile, hasInlineTests, splitTestItems } = await import('@leap/verify');
  const found: string[] = [];
  const text = async (spec: string) => (await ctx.git(['cat-file', 'blob', spec], { allowFailure: true })).stdout;
  for (const { status, path } of changes) {
    if (status === 'A' || !(isTestFile(path) || ctx.setup.testGlobs.some((re) => re.test(path)))) continue;
    if (
      hasInlineTests(path, isTestFile(path)) &&
      splitTestItems(await text(`${commit}:${path}`)).tests === splitTestItems(await text(`:${path}`)).tests
    )
      continue;
    found.push(path);
  }
  return found;
}

async function ownReject({ ctx, step: { title: step }, phase }: PhaseRun, reason: string) {
  const commit = (await ctx.git.out(['rev-parse', 'HEAD'])).trim();
  ctx.event('verdict', { phase, verdict: 'REJECT', reason, code: 1, commit }, step);
  await ctx.say(`verdict ${phase}: REJECT: ${reason}`);
  const gathered = gather({ verdicts: [{ step, phase, verdict: 'REJECT' as const, reason }] });
  return { kind: 'verdict' as const, verdict: 'REJECT' as const, reason, commit: null, gathered };
}

// The phase passed: red hands over to green; green is the tick; refactor ticks its criterion and clears.
async function land({ ctx, progress, step, phase }: PhaseRun, verified: string | null): Promise<void> {
  if (phase === 'red') {
    progress.journal = freshJournal(progress.journal, ctx.testCmd, {
      step: step.title,
      phase: 'green',
      phase_base: verified ?? (await ctx.heads.sha()),
    });
    progress.saveJournal();
    return;
  }
  const { tick, clearRefactor, RefusedError } = await import('@leap/ledger');
  const env = { ...ctx.env, VERI_ISSUE: String(ctx.issue), VERI_STEP: step.title };
  // HEAD as known, so the ledger asks git nothing before its commit; a wrong one is refused at update-ref.
  const head = await ctx.heads.sha();
  const options = { issue: ctx.issue, step: step.title, cwd: ctx.root, env, allowEmpty: true, head };
  try {
    if (phase === 'green') {
      const done = await tick(options);
      ctx.heads.know(done.head);
      await ctx.say(
        `green commit ${done.commit.slice(0, 12)}: green: ${step.title} (the ledger ticks the step in the same commit)`,
      );
      return;
    }
    const remote = await tickCriterionWith(ctx, step);
    const done = await clearRefactor(options);
    ctx.heads.know(done.head);
    await ctx.say(`refactor commit ${done.commit.slice(0, 12)}: refactor: ${step.title}`);
    if (remote !== null) await remote();
  } catch (error) {
    if (error instanceof RefusedError)
      throw new Bail('commit-refused', `the ${phase} commit of "${step.title}" was refused: ${error.message}`);
    throw error;
  }
}

// An issue file in the repository is ticked and staged now, riding in the refactor commit; else the tick runs after.
async function tickCriterionWith(ctx: RunContext, step: LedgerStep): Promise<(() => Promise<void>) | null> {
  const k = step.criterion;
  if (k === null) return null;
  const others = ctx.readLedger().steps.filter((s) => s.criterion === k && s.title !== step.title);
  if (others.some((s) => s.state !== 'done')) return null;
  const tickIt = () => ctx.tickCriteria((i) => i === k, step.title);
  const rel = ctx.issueFileRel();
  if (rel !== null) {
    await tickIt();
    // `git add` refuses an ignored path: check-ignore, asked only then, tells that refusal from a failure.
    const added = await ctx.git(['add', '--', rel], { allowFailure: true });
    if (added.code !== 0 && (await ctx.git(['check-ignore', '-q', '--', rel], { allowFailure: true })).code !== 0) {
      const why = added.stderr.trim() || added.stdout.trim();
      throw new InternalError(`git add -- ${rel} failed (exit ${added.code}): ${why}`, { exitCode: GIT_FAILURE_EXIT });
    }
    return null;
  }
  return tickIt;
}
