// A phase's stages (develop, collect, verify, land), each journaled first: docs/decisions/conductor-resume.md.
import { lstatSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { InternalError, parseStatusV2, type LedgerStep } from '@leap/core';
import { GIT_FAILURE_EXIT } from './git.js';
import { Bail, carrying } from './bail-causes.js';
import { developLeafName, freshJournal, type RunContext, type RunProgress } from './conductor.js';
import { NOTHING, gather, merge, type Gathered } from './gathered.js';
import { agentFor, fallOver, launchAgentLeaf, runVerification, type Launched } from './launch.js';
import { developerPrompt, type Phase } from './prompts.js';
import { clearApart, putBack, readExitFile } from '@leap/supervise';
import { type LeafActivity, type LeafWork, activityFile, apartCopy, leaveOutUsersFiles, readLeafActivity, watchLeafActivity } from './user-writes.js';
import { blockedReason } from '@leap/verify';

export interface PhaseStart {
  /** Trees whose suite passed in this process: red's verification does not run the suite on one again. */
  passedTrees: readonly string[];
  /** Whether this process has looked for changes the run did not make (preflight did, or a phase before). */
  treeChecked: boolean;
}

export interface PhaseEnd {
  gathered: Gathered;
  treeChecked: boolean;
}

/** From wherever the journal and git say `phase` stands to its landing; a bail or stop carries what it gathered. */
export async function drivePhase(ctx: RunContext, progress: RunProgress, step: LedgerStep, phase: Phase, index: number, start: PhaseStart): Promise<PhaseEnd> {
  const { journal: j, treeChecked } = await alignJournal(ctx, progress, step, phase, start.treeChecked);
  const where = (what: string) => `at step ${index} "${step.title}", before ${what}`;
  // The commit this process's PASS judged, returned by the verification: red's landing (null on a resume at passed).
  let verified: string | null = null;
  // Unsandboxed, what the developer leaf this process ran did when (a resumed run reads it from its activity file).
  const sandboxed = ctx.setup.sandbox.bwrap !== null;
  let activity: LeafActivity | null = null;
  const work = (leaf = j.leaf as string): LeafWork => {
    const start = j.tree ?? (j.phase_base as string);
    // Idempotent: puts back what a sandboxed leaf wrote if its conductor died first; no copy made: it wrote nothing.
    const copy = apartCopy(ctx.paths.dir, leaf);
    if (sandboxed) return { leaf, start, apart: putBack(copy) ?? { wrote: [], clashed: [], clashedDir: `${copy}.clashed` } };
    activity ??= readLeafActivity(activityFile(ctx.paths.dir, leaf), j.leaf_started ?? 0, ctx.paths.exit(leaf));
    return { leaf, start, apart: null, activity };
  };
  let got = NOTHING;
  try {
    for (;;) {
      if (j.stage === 'leaf') {
        // Resumed: the conductor died while this leaf ran. Its work counts only if it exited 0 after it started.
        const resumed = j.leaf === null ? null : work();
        const exit = resumed === null ? null : readExitFile(ctx.paths.exit(resumed.leaf));
        if (exit !== null && exit.status === 'exited' && exit.code === 0 && exitNewer(ctx, j.leaf as string, j.leaf_started)) {
          j.stage = 'developed';
        } else {
          await restoreLeafStart(ctx, step, phase, resumed ?? work(), j.tree, j.state_before ?? {});
          j.stage = 'ready';
        }
        progress.saveJournal();
      } else if (j.stage === 'ready') {
        const name = developLeafName(phase, j.attempt);
        // A first attempt starts from HEAD's tree; a revision from the attempts before it, as collect staged them.
        j.tree = j.attempt === 1 && j.retried === 0 ? null : await ctx.git.out(['write-tree']);
        // The state folder's bytes HEAD lacks (a user's issue file, notes): the leaf's undo puts them back.
        j.state_before = await snapshotStateFolder(ctx);
        // The agent that takes the leaf (the next of its list once one ran dry); its family is the verifier's to avoid.
        const developer = agentFor(ctx, 'developer');
        j.developer_family = developer.agent.family;
        // A resume before the leaf began must not read an older leaf's put-back of the same name.
        clearApart(apartCopy(ctx.paths.dir, name));
        j.leaf = name;
        j.stage = 'leaf';
        j.leaf_started = Date.now();
        progress.saveJournal();
        await ctx.say(`step ${index} ${phase}: ${name}${j.attempt > 1 ? ` (revision ${j.attempt - 1})` : ''}`);
        const revision = j.reason === null ? null : { attempt: j.attempt, reason: j.reason };
        // Unsandboxed, its processes are followed: what changes in the tree while none of them runs is not its work.
        const watch = sandboxed ? null : watchLeafActivity(activityFile(ctx.paths.dir, name));
        let end: Awaited<ReturnType<typeof launchAgentLeaf>>;
        try {
          end = await launchAgentLeaf(ctx, name, 'developer', developer, developerPrompt(ctx.setup.issueData, step.title, phase, revision), step.title, phase, j.attempt, where(name));
        } finally {
          activity = watch?.stop() ?? null;
        }
        got = merge(got, end.gathered);
        if (end.kind === 'dry') {
          // Its vendor ran dry: the next developer of the list takes the leaf from where it began, no revision spent.
          await fallOver(ctx, 'developer', developer, name, end.dry, step.title);
          await restoreLeafStart(ctx, step, phase, work(), j.tree, j.state_before ?? {});
          j.stage = 'ready';
          progress.saveJournal();
        } else if (end.kind === 'retry') {
          if (j.retried >= 1)
            throw new Bail(
              end.status,
              `The developer leaf ${name} was ${end.status === 'killed-timeout' ? 'killed at its time limit' : 'killed as stuck'} twice (${end.status}): relaunched once already.`,
            );
          await ctx.say(`${name} was ${end.status}; relaunching it once from where it began`);
          await restoreLeafStart(ctx, step, phase, work(), j.tree, j.state_before ?? {});
          j.retried++;
          j.stage = 'ready';
          progress.saveJournal();
        } else {
          // The honest way out: a last line {"blocked": "REASON"} stops the step, no revision spent, every commit kept.
          const blocked = blockedReason(end.result.answer?.text ?? end.result.stdout);
          if (blocked !== null) throw blockedBail(`The developer leaf ${name}`, index, step, blocked);
          // Not saved: the journal's `leaf` and a newer exit file 0 already say `developed` to a resumed run.
          j.stage = 'developed';
        }
      } else if (j.stage === 'developed') {
        got = merge(got, await collect(ctx, step, phase, j.phase_base as string, j.state_before ?? {}, work()));
        j.stage = 'verifying';
        progress.saveJournal();
      } else if (j.stage === 'verifying') {
        const verdictWhere = where(`verify-${phase}`);
        // Green may change no test file present at the red commit (refactor's ground truth checks the same in verify).
        const touched = phase === 'green' ? await testFilesChanged(ctx, j.phase_base as string) : [];
        const end =
          touched.length > 0
            ? await ownReject(
                ctx,
                step.title,
                phase,
                `ground truth: the green phase changed or removed test files present at the red commit ${(j.phase_base as string).slice(0, 12)}: ${touched.join(', ')}`,
              )
            : await runVerification(ctx, step.title, phase, j.attempt, phase === 'refactor' ? (j.phase_base as string) : undefined, verdictWhere, j.developer_family, start.passedTrees);
        got = merge(got, end.gathered);
        if (end.kind === 'dry') {
          // The verifier's vendor ran dry: the next verifier of the list (never of the developer's family) verifies.
          await fallOver(ctx, 'verifier', end.verifier, `verify-${phase}`, end.dry, step.title, j.developer_family);
        } else if (end.kind === 'retry') {
          if (j.retried >= 1)
            throw new Bail(end.why.startsWith('killed-') ? (end.why as 'killed-timeout') : 'agent-failed', `The verifier leaf verify-${phase} failed twice (${end.why}): relaunched once already.`);
          await ctx.say(`verify-${phase}: ${end.why}; relaunching it once`);
          j.retried++;
        } else if (end.verdict === 'PASS') {
          verified = end.commit;
          j.stage = 'passed';
        } else if (end.verdict === 'BLOCKED') {
          throw blockedBail(`The verifier of the ${phase} phase`, index, step, end.reason);
        } else {
          if (end.verdict === 'flaky' && j.attempt - 1 >= ctx.setup.revisions) throw flakyBail(ctx, index, step, end.flaky ?? []);
          if (j.attempt - 1 >= ctx.setup.revisions) {
            throw new Bail(
              'revision-budget',
              `The ${phase} phase of step ${index} "${step.title}" was rejected ${j.attempt} time${j.attempt === 1 ? '' : 's'}, and the revision budget (--revisions ${ctx.setup.revisions}) is spent. The verifier's last reason: ${end.reason}`,
            );
          }
          // A rejected red is taken back (its tests stay staged), so history keeps one red commit per step.
          if (phase === 'red') await ctx.git(['reset', '-q', '--soft', j.phase_base as string]);
          j.attempt++;
          j.reason = end.reason;
          j.retried = 0;
          j.stage = 'ready';
        }
        progress.saveJournal();
      } else {
        await land(ctx, progress, step, phase, verified);
        return { gathered: got, treeChecked };
      }
    }
  } catch (error) {
    throw carrying(error, got);
  }
}

function blockedBail(who: string, index: number, step: LedgerStep, reason: string): Bail {
  const kept = 'No revision was spent and every commit made is kept. Answer it (the issue, the test or the plan), then run again.';
  return new Bail('needs-user', `${who} says step ${index} "${step.title}" cannot be done as written:\n${reason}\n${kept}`, undefined, true);
}

function flakyBail(ctx: RunContext, index: number, step: LedgerStep, tests: readonly string[]): Bail {
  const flaky = `a test passed once and failed once on the same tree (${tests.join(', ')})`;
  const ask = 'Make it deterministic, or tell the run it is known to be flaky, then run again.';
  return new Bail('needs-user', `Step ${index} "${step.title}" is not ticked: ${flaky}, and no revision is left (--revisions ${ctx.setup.revisions}). ${ask}`);
}

// The recorded journal when it is this phase's, else a fresh one whose stage git decides (a made red is verified).
async function alignJournal(ctx: RunContext, progress: RunProgress, step: LedgerStep, phase: Phase, treeChecked: boolean) {
  const j = progress.journal;
  if (j.step === step.title && j.phase === phase) return { journal: j, treeChecked };
  const head = await ctx.heads.sha();
  const redDone = phase === 'red' && (await ctx.heads.subject()) === `red: ${step.title}`;
  // Only the first phase a process reaches can find changes it did not make: after that every change is its leaves'.
  const dirty = redDone || treeChecked ? [] : await dirtyPaths(ctx);
  if (dirty.length > 0) {
    throw new Bail('dirty-tree', `The working tree has changes this run did not make (${dirty.slice(0, 5).join(', ')}), at step "${step.title}". Commit or remove them, then run again.`);
  }
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
  const out = (await ctx.git(['diff', '--cached', '--no-renames', '--name-status', '-z', commit])).stdout.split('\0');
  const { isTestFile, hasInlineTests, splitTestItems } = await import('@leap/verify');
  const found: string[] = [];
  const text = async (spec: string) => (await ctx.git(['cat-file', 'blob', spec], { allowFailure: true })).stdout;
  for (let i = 0; i + 1 < out.length; i += 2) {
    const status = out[i] as string;
    const path = out[i + 1] as string;
    if (status === 'A' || !(isTestFile(path) || ctx.isTestPath(path))) continue;
    if (hasInlineTests(path, isTestFile(path)) && splitTestItems(await text(`${commit}:${path}`)).tests === splitTestItems(await text(`:${path}`)).tests) continue;
    found.push(path);
  }
  return found;
}

// A REJECT decided by the conductor's own check, before any verifier is asked: returned and narrated as a verdict.
async function ownReject(ctx: RunContext, step: string, phase: Phase, reason: string): Promise<Launched<{ kind: 'verdict'; verdict: 'REJECT'; reason: string; commit: null }>> {
  const commit = (await ctx.git.out(['rev-parse', 'HEAD'])).trim();
  ctx.event('verdict', { phase, verdict: 'REJECT', reason, code: 1, commit }, step);
  await ctx.say(`verdict ${phase}: REJECT: ${reason}`);
  return { kind: 'verdict', verdict: 'REJECT', reason, commit: null, gathered: gather({ verdicts: [{ step, phase, verdict: 'REJECT', reason }] }) };
}

function exitNewer(ctx: RunContext, leaf: string, startedAt: number | undefined): boolean {
  try {
    return statSync(ctx.paths.exit(leaf)).mtimeMs >= (startedAt ?? Number.POSITIVE_INFINITY) - 1000;
  } catch {
    return false;
  }
}

/** Uncommitted paths outside the state folder (tracked changes and untracked files not ignored). */
export async function dirtyPaths(run: Pick<RunContext, 'git' | 'root' | 'paths'>): Promise<string[]> {
  const status = await run.git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=all']);
  const runRel = relative(run.root, run.paths.dir);
  return status.stdout
    .split('\0')
    .filter((e) => e.length > 3)
    .map((e) => e.slice(3))
    .filter((p) => runRel.startsWith('..') || !(p === runRel || p.startsWith(`${runRel}/`)));
}

/** Everything but the state folder: its files are the ledger's, the tracker's and the user's, never a phase's. */
async function addAll(ctx: RunContext): Promise<void> {
  const stateRel = relative(ctx.root, ctx.paths.dir);
  const inside = stateRel !== '' && !stateRel.startsWith('..');
  await ctx.git(['add', '-A', ...(inside ? ['--', '.', `:(exclude,literal)${stateRel}`] : [])]);
}

// Back to the leaf's start: its work kept in an attempt ref (not what it did not write), then `tree` (null: HEAD).
async function restoreLeafStart(ctx: RunContext, step: LedgerStep, phase: Phase, work: LeafWork, tree: string | null, before: StateSnapshot): Promise<void> {
  await undoStateEdits(ctx, undefined, before);
  if ((await dirtyPaths(ctx)).length > 0) {
    await addAll(ctx);
    const leave = await leaveOutUsersFiles(ctx, phase, step.title, work, "the unfinished leaf's attempt");
    const { preserveAttempt } = await import('@leap/ledger');
    const kept = await preserveAttempt({ issue: ctx.issue, step: step.title, cwd: ctx.root, env: ctx.env, leave });
    if (kept.ref !== null) await ctx.say(`the unfinished leaf's work is kept in ${kept.ref}`);
  }
  if (tree !== null && tree !== (await ctx.git.out(['rev-parse', 'HEAD^{tree}']))) {
    await ctx.git(['read-tree', '-m', '-u', 'HEAD', tree]);
  }
}

interface StateStatus {
  /** Untracked, or added to the index (not in HEAD): they go. */
  remove: string[];
  /** Every path whose index entry differs from HEAD's. */
  indexed: string[];
  /** Anything else of HEAD's: it comes back from HEAD. */
  restore: string[];
  /** HEAD's commit and its symbolic full name (`HEAD` when detached); with `branch` only. */
  head?: { sha: string; on: string };
}

async function readStateStatus(ctx: RunContext, stateRel: string, branch: boolean): Promise<StateStatus> {
  const args = ['status', '--porcelain=v2', '-z', '--untracked-files=all', '--no-renames', ...(branch ? ['--branch'] : [])];
  const status = parseStatusV2((await ctx.git([...args, '--', stateRel])).stdout);
  const found: StateStatus = { remove: [], restore: [], indexed: [] };
  for (const { x, path } of status.entries) {
    if (x !== '.' && x !== '?') found.indexed.push(path);
    (x === '?' || x === 'A' ? found.remove : found.restore).push(path);
  }
  if (branch) found.head = { sha: status.oid ?? '', on: status.branch === null ? 'HEAD' : `refs/heads/${status.branch}` };
  return found;
}

/** The state folder's paths that differ from HEAD, each with its bytes' blob (null: absent). */
export type StateSnapshot = Record<string, string | null>;

/** The blobs are written to git's objects, so a leaf's undo can put the bytes back. */
export async function snapshotStateFolder(ctx: RunContext): Promise<StateSnapshot> {
  const stateRel = relative(ctx.root, ctx.paths.dir);
  if (stateRel.startsWith('..')) return {};
  const { restore, remove } = await readStateStatus(ctx, stateRel, false);
  return hashPaths(ctx, [...restore, ...remove], true);
}

async function hashPaths(ctx: RunContext, paths: readonly string[], write: boolean): Promise<StateSnapshot> {
  const present = paths.filter((p) => isFile(join(ctx.root, p)));
  const shas = present.length === 0 ? [] : (await ctx.git(['hash-object', ...(write ? ['-w'] : []), '--no-filters', '--', ...present])).stdout.trim().split('\n');
  const found: StateSnapshot = {};
  for (const p of paths) found[p] = null;
  for (const [i, p] of present.entries()) found[p] = shas[i] ?? null;
  return found;
}

function isFile(file: string): boolean {
  try {
    return lstatSync(file).isFile();
  } catch {
    return false;
  }
}

// A leaf's state-folder edits never count: a path as in HEAD before goes back to HEAD, one in `before` to its bytes.
// `known` is a status read since HEAD last moved.
export async function undoStateEdits(ctx: RunContext, known: StateStatus | undefined, before: StateSnapshot): Promise<string[]> {
  const stateRel = relative(ctx.root, ctx.paths.dir);
  if (stateRel.startsWith('..')) return [];
  const current = known ?? (await readStateStatus(ctx, stateRel, false));
  const changedNow = new Set([...current.restore, ...current.remove]);
  const restore = current.restore.filter((p) => !(p in before));
  const remove = current.remove.filter((p) => !(p in before));
  const mine = Object.keys(before);
  const touched = mine.filter((p) => changedNow.has(p));
  const now = await hashPaths(ctx, touched, false);
  const putBack = mine.filter((p) => (changedNow.has(p) ? now[p] : 'as in HEAD') !== before[p]);
  if (restore.length > 0) await ctx.git(['checkout', '-q', 'HEAD', '--', ...restore]);
  for (const p of remove) rmSync(join(ctx.root, p), { force: true });
  for (const p of putBack) {
    const file = join(ctx.root, p);
    const blob = before[p] as string | null;
    rmSync(file, { force: true });
    if (blob === null) continue;
    mkdirSync(dirname(file), { recursive: true });
    // Bytes, not text: the blob may be binary.
    writeFileSync(file, (await ctx.git(['cat-file', 'blob', blob])).bytes);
  }
  // The run never stages the state folder: a phase's commit holds none of it.
  const indexed = current.indexed.filter((p) => !restore.includes(p));
  if (indexed.length > 0) await ctx.git(['reset', '-q', '--', ...indexed]);
  const undone = [...restore, ...remove, ...putBack];
  if (undone.length > 0) await ctx.say(`a leaf edited the state folder (${undone.join(', ')}); its edits do not count and were undone`);
  return undone;
}

// After a developer leaf: back on the branch, its commits folded, its state edits undone, all staged but users' files.
async function collect(ctx: RunContext, step: LedgerStep, phase: Phase, base: string, before: StateSnapshot, work: LeafWork): Promise<Gathered> {
  const ref = `refs/heads/${ctx.branch}`;
  // The state folder is inside the repository here: the plan commit holds its ledger.
  let known: StateStatus | undefined = await readStateStatus(ctx, relative(ctx.root, ctx.paths.dir), true);
  const { sha, on } = known.head as { sha: string; on: string };
  if (on !== ref) {
    await ctx.git(['symbolic-ref', 'HEAD', ref]);
    await ctx.say(`the leaf left the branch (${on === 'HEAD' ? 'detached HEAD' : on}); back on ${ctx.branch}`);
  }
  if (on !== ref || sha !== base) {
    await ctx.git(['reset', '-q', '--soft', base]);
    await ctx.say(`the leaf committed on its own; its commits are folded into the ${phase} commit`);
    known = undefined;
  } else {
    ctx.heads.know({ sha, subject: null });
  }
  await undoStateEdits(ctx, known, before);
  await addAll(ctx);
  await leaveOutUsersFiles(ctx, phase, step.title, work);
  if (phase !== 'red') return NOTHING;
  const committed = await commitOrBail(ctx, ['commit', '-q', '--allow-empty', '-F', '-'], `red: ${step.title}`);
  await ctx.say(`red commit ${(await ctx.heads.sha()).slice(0, 12)}: red: ${step.title}`);
  return committed;
}

/** A refusal (a hook) is the commit-refused bail; auto maintenance is skipped here: the run's end starts it once. */
export async function commitOrBail(ctx: RunContext, args: string[], message: string): Promise<Gathered> {
  const done = await ctx.git(['-c', 'maintenance.auto=false', ...args], { input: `${message}\n`, allowFailure: true });
  const committed = gather({ committed: true });
  if (done.code !== 0) throw new Bail('commit-refused', `git refused the commit "${message}": ${done.stderr.trim() || done.stdout.trim() || `exit ${done.code}`}`, committed);
  return committed;
}

// The phase passed: red hands over to green; green is the tick; refactor ticks its criterion and clears.
async function land(ctx: RunContext, progress: RunProgress, step: LedgerStep, phase: Phase, verified: string | null): Promise<void> {
  if (phase === 'red') {
    // Green starts from the red commit that passed, or HEAD when it passed before this process (a resume at `passed`).
    const red = verified ?? (await ctx.heads.sha());
    progress.journal = freshJournal(progress.journal, ctx.testCmd, { step: step.title, phase: 'green', phase_base: red });
    progress.saveJournal();
    return;
  }
  const { tick, clearRefactor, RefusedError } = await import('@leap/ledger');
  const env = { ...ctx.env, VERI_ISSUE: String(ctx.issue), VERI_STEP: step.title };
  // HEAD as known, so the ledger asks git nothing before its commit; a wrong one is refused at update-ref.
  const options = { issue: ctx.issue, step: step.title, cwd: ctx.root, env, allowEmpty: true, head: await ctx.heads.sha() };
  try {
    if (phase === 'green') {
      const done = await tick(options);
      ctx.heads.know(done.head);
      await ctx.say(`green commit ${done.commit.slice(0, 12)}: green: ${step.title} (the ledger ticks the step in the same commit)`);
      return;
    }
    const remote = await tickCriterionWith(ctx, step);
    const done = await clearRefactor(options);
    ctx.heads.know(done.head);
    await ctx.say(`refactor commit ${done.commit.slice(0, 12)}: refactor: ${step.title}`);
    if (remote !== null) await remote();
  } catch (error) {
    if (error instanceof RefusedError) throw new Bail('commit-refused', `the ${phase} commit of "${step.title}" was refused: ${error.message}`);
    throw error;
  }
}

// An issue file in the repository is ticked and staged now, riding in the refactor commit; else the tick runs after.
async function tickCriterionWith(ctx: RunContext, step: LedgerStep): Promise<(() => Promise<void>) | null> {
  const k = step.criterion;
  if (k === null) return null;
  const others = ctx.readLedger().steps.filter((s) => s.criterion === k && s.title !== step.title);
  if (others.some((s) => s.state !== 'done')) return null;
  const tracker = ctx.setup.tracker;
  const tickIt = async (): Promise<void> => {
    const issue = await tracker.readIssue(ctx.issue);
    const criterion = issue.criteria.find((c) => c.index === k);
    if (criterion === undefined || criterion.checked) return;
    await tracker.tickCriterion(ctx.issue, k);
    ctx.event('tick', { action: 'tick-criterion', title: criterion.text, criterion: k }, step.title);
    await ctx.say(`criterion ${k} ticked: ${criterion.text}`);
  };
  const file = tracker.issueFile?.(ctx.issue) ?? null;
  const rel = file === null ? null : relative(ctx.root, file);
  if (rel !== null && !rel.startsWith('..')) {
    await tickIt();
    // `git add` refuses an ignored path: check-ignore, asked only then, tells that refusal from a failure.
    const added = await ctx.git(['add', '--', rel], { allowFailure: true });
    if (added.code !== 0 && (await ctx.git(['check-ignore', '-q', '--', rel], { allowFailure: true })).code !== 0) {
      throw new InternalError(`git add -- ${rel} failed (exit ${added.code}): ${added.stderr.trim() || added.stdout.trim()}`, { exitCode: GIT_FAILURE_EXIT });
    }
    return null;
  }
  return tickIt;
}
