// A phase's developer leaf: launched (a dry vendor's leaf to the next agent), resumed, undone to its start, collected.
import { lstatSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { orElse, parseStatusV2, type LedgerStep } from '@leap/core';
import { clearApart, putBack, readExitFile } from '@leap/supervise';
import { blockedReason } from '@leap/verify';
import { Bail, NOTHING, carrying, gather, type Gathered } from './bail-causes.js';
import type { RunContext, RunProgress } from './conductor.js';
import { agentFor, fallOver, launchAgentLeaf } from './launch.js';
import { developerPrompt, type Phase } from './prompts.js';
import type { RunJournal } from './run-files.js';
import { activityFile, apartCopy, leaveOutUsersFiles, readLeafActivity, watchLeafActivity } from './user-writes.js';
import type { LeafActivity, LeafWork } from './user-writes.js';

/** One phase of one step as its stages are given it; the journal (`progress`) is the one part they change. */
export type PhaseRun = { ctx: RunContext; progress: RunProgress; step: LedgerStep; phase: Phase; index: number };

export function phaseWhere({ step, index }: PhaseRun, what: string): string {
  return `at step ${index} "${step.title}", before ${what}`;
}

/** The journal's leaf; unsandboxed, when it ran: `activity` as watched, else as its activity file says (a resume). */
export function leafWork(ctx: RunContext, j: RunJournal, activity: LeafActivity | null): LeafWork {
  const leaf = j.leaf as string;
  const start = j.tree ?? (j.phase_base as string);
  // Idempotent: puts back what a sandboxed leaf wrote if its conductor died first; no copy made: it wrote nothing.
  const copy = apartCopy(ctx.paths.dir, leaf);
  const none = { wrote: [], clashed: [], clashedDir: `${copy}.clashed` };
  if (ctx.setup.sandbox.bwrap !== null) return { leaf, start, apart: putBack(copy) ?? none };
  const file = activityFile(ctx.paths.dir, leaf);
  const read = activity ?? readLeafActivity(file, j.leaf_started ?? 0, ctx.paths.exit(leaf));
  return { leaf, start, apart: null, activity: read };
}

/** Resumed: the conductor died while this leaf ran. Its work counts only if it exited 0 after it started. */
export async function resumeLeaf(p: PhaseRun): Promise<LeafActivity | null> {
  const j = p.progress.journal;
  const resumed = j.leaf === null ? null : leafWork(p.ctx, j, null);
  const exit = resumed === null ? null : readExitFile(p.ctx.paths.exit(resumed.leaf));
  if (exit?.status === 'exited' && exit.code === 0 && exitNewer(p.ctx, j.leaf as string, j.leaf_started)) {
    j.stage = 'developed';
  } else {
    await restoreLeafStart(p, resumed ?? leafWork(p.ctx, j, null));
    j.stage = 'ready';
  }
  p.progress.saveJournal();
  return resumed?.activity ?? null;
}

export async function developLeaf(p: PhaseRun): Promise<{ gathered: Gathered; activity: LeafActivity | null }> {
  const { ctx, progress, step, phase, index } = p;
  const j = progress.journal;
  const name = j.attempt === 1 ? `develop-${phase}` : `develop-${phase}-${j.attempt}`;
  // A first attempt starts from HEAD's tree; a revision from the attempts before it, as collect staged them.
  j.tree = j.attempt === 1 && j.retried === 0 ? null : await ctx.git.out(['write-tree']);
  j.state_before = await snapshotStateFolder(ctx);
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
  const prompt = developerPrompt(ctx.setup.issueData, step.title, phase, revision);
  const where = phaseWhere(p, name);
  // Unsandboxed, its processes are followed: what changes in the tree while none of them runs is not its work.
  const watch = ctx.setup.sandbox.bwrap === null ? watchLeafActivity(activityFile(ctx.paths.dir, name)) : null;
  let activity: LeafActivity | null = null;
  let end: Awaited<ReturnType<typeof launchAgentLeaf>>;
  try {
    end = await launchAgentLeaf(ctx, name, 'developer', developer, prompt, step.title, phase, j.attempt, where);
  } finally {
    activity = watch?.stop() ?? null;
  }
  try {
    if (end.kind === 'ok') {
      const blocked = blockedReason(end.result.answer?.text ?? end.result.stdout);
      if (blocked !== null) throw blockedBail(`The developer leaf ${name}`, index, step, blocked);
      // Not saved: the journal's `leaf` and a newer exit file 0 already say `developed` to a resumed run.
      j.stage = 'developed';
      return { gathered: end.gathered, activity };
    }
    if (end.kind === 'dry') {
      await fallOver(ctx, 'developer', developer, name, end.dry, step.title);
    } else {
      const how = end.status === 'killed-timeout' ? 'killed at its time limit' : 'killed as stuck';
      const twice = `The developer leaf ${name} was ${how} twice (${end.status}): relaunched once already.`;
      if (j.retried >= 1) throw new Bail(end.status, twice);
      await ctx.say(`${name} was ${end.status}; relaunching it once from where it began`);
    }
    await restoreLeafStart(p, leafWork(ctx, j, activity));
    if (end.kind === 'retry') j.retried++;
    j.stage = 'ready';
    progress.saveJournal();
  } catch (error) {
    throw carrying(error, end.gathered);
  }
  return { gathered: end.gathered, activity };
}

export function blockedBail(who: string, index: number, step: LedgerStep, reason: string): Bail {
  const says = `${who} says step ${index} "${step.title}" cannot be done as written:\n${reason}\nNo revision was spent`;
  const kept = 'and every commit made is kept. Answer it (the issue, the test or the plan), then run again.';
  return new Bail('needs-user', `${says} ${kept}`, undefined, true);
}

function exitNewer(ctx: RunContext, leaf: string, startedAt: number | undefined): boolean {
  const at = statSync(ctx.paths.exit(leaf), { throwIfNoEntry: false })?.mtimeMs;
  return at !== undefined && at >= (startedAt ?? Number.POSITIVE_INFINITY) - 1000;
}

// Back to the leaf's start: its work kept in an attempt ref (not what it did not write), then the journal's `tree`.
async function restoreLeafStart(p: PhaseRun, work: LeafWork): Promise<void> {
  const { ctx, step } = p;
  const { tree, state_before: before } = p.progress.journal;
  await undoStateEdits(ctx, undefined, before ?? {});
  if ((await dirtyPaths(ctx)).length > 0) {
    await addAll(ctx);
    const leave = await leaveOutUsersFiles(p, work, "the unfinished leaf's attempt");
    const { preserveAttempt } = await import('@leap/ledger');
    const kept = await preserveAttempt({ issue: ctx.issue, step: step.title, cwd: ctx.root, env: ctx.env, leave });
    if (kept.ref !== null) await ctx.say(`the unfinished leaf's work is kept in ${kept.ref}`);
  }
  if (tree !== null && tree !== (await ctx.git.out(['rev-parse', 'HEAD^{tree}']))) {
    await ctx.git(['read-tree', '-m', '-u', 'HEAD', tree]);
  }
}

// After a developer leaf: back on the branch, its commits folded, its state edits undone, all staged but users' files.
export async function collect(p: PhaseRun, work: LeafWork): Promise<Gathered> {
  const { ctx, progress, step, phase } = p;
  const base = progress.journal.phase_base as string;
  const ref = `refs/heads/${ctx.branch}`;
  const known = await readStateStatus(ctx, relative(ctx.root, ctx.paths.dir), true);
  const { sha, on } = known.head as { sha: string; on: string };
  if (on !== ref) {
    await ctx.git(['symbolic-ref', 'HEAD', ref]);
    await ctx.say(`the leaf left the branch (${on === 'HEAD' ? 'detached HEAD' : on}); back on ${ctx.branch}`);
  }
  const moved = on !== ref || sha !== base;
  if (moved) {
    await ctx.git(['reset', '-q', '--soft', base]);
    await ctx.say(`the leaf committed on its own; its commits are folded into the ${phase} commit`);
  } else {
    ctx.heads.know({ sha, subject: null });
  }
  await undoStateEdits(ctx, moved ? undefined : known, progress.journal.state_before ?? {});
  await addAll(ctx);
  await leaveOutUsersFiles(p, work);
  if (phase !== 'red') return NOTHING;
  const committed = await commitOrBail(ctx, ['commit', '-q', '--allow-empty', '-F', '-'], `red: ${step.title}`);
  await ctx.say(`red commit ${(await ctx.heads.sha()).slice(0, 12)}: red: ${step.title}`);
  return committed;
}

/** A refusal (a hook) is the commit-refused bail; auto maintenance is skipped here: the run's end starts it once. */
export async function commitOrBail(ctx: RunContext, args: string[], message: string): Promise<Gathered> {
  const done = await ctx.git(['-c', 'maintenance.auto=false', ...args], { input: `${message}\n`, allowFailure: true });
  const committed = gather({ committed: true });
  const why = done.stderr.trim() || done.stdout.trim() || `exit ${done.code}`;
  if (done.code !== 0) throw new Bail('commit-refused', `git refused the commit "${message}": ${why}`, committed);
  return committed;
}

// The state folder is the ledger's, the tracker's and the user's: a leaf's edits to it are undone, never committed.
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

/** What the index changes against `commit` (renames as a deletion and an addition): each path and its status letter. */
export async function stagedChanges(ctx: RunContext, commit: string): Promise<{ status: string; path: string }[]> {
  const args = ['diff', '--cached', '--no-renames', '--name-status', '-z', commit, '--'];
  const parts = (await ctx.git(args)).stdout.split('\0');
  return parts.flatMap((status, i) => (i % 2 === 0 && i + 1 < parts.length ? [{ status, path: parts[i + 1]! }] : []));
}

async function addAll(ctx: RunContext): Promise<void> {
  const stateRel = relative(ctx.root, ctx.paths.dir);
  const inside = stateRel !== '' && !stateRel.startsWith('..');
  await ctx.git(['add', '-A', ...(inside ? ['--', '.', `:(exclude,literal)${stateRel}`] : [])]);
}

export interface StateStatus {
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
  const args = ['status', '--porcelain=v2', '-z', '--untracked-files=all', '--no-renames'];
  const status = parseStatusV2((await ctx.git([...args, ...(branch ? ['--branch'] : []), '--', stateRel])).stdout);
  const found: StateStatus = { remove: [], restore: [], indexed: [] };
  for (const { x, path } of status.entries) {
    if (x !== '.' && x !== '?') found.indexed.push(path);
    (x === '?' || x === 'A' ? found.remove : found.restore).push(path);
  }
  if (branch)
    found.head = { sha: status.oid ?? '', on: status.branch === null ? 'HEAD' : `refs/heads/${status.branch}` };
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
  const shas =
    present.length === 0
      ? []
      : (await ctx.git(['hash-object', ...(write ? ['-w'] : []), '--no-filters', '--', ...present])).stdout
          .trim()
          .split('\n');
  const found: StateSnapshot = {};
  for (const p of paths) found[p] = null;
  for (const [i, p] of present.entries()) found[p] = shas[i] ?? null;
  return found;
}

const isFile = (file: string): boolean => orElse(() => lstatSync(file).isFile(), false);

// A path as in HEAD goes back to HEAD, one in `before` to its bytes; `known`: a status read since HEAD last moved.
export async function undoStateEdits(ctx: RunContext, known: StateStatus | undefined, before: StateSnapshot) {
  const stateRel = relative(ctx.root, ctx.paths.dir);
  if (stateRel.startsWith('..')) return;
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
    writeFileSync(file, (await ctx.git(['cat-file', 'blob', blob])).bytes);
  }
  // The run never stages the state folder: a phase's commit holds none of it.
  const indexed = current.indexed.filter((p) => !restore.includes(p));
  if (indexed.length > 0) await ctx.git(['reset', '-q', '--', ...indexed]);
  const undone = [...restore, ...remove, ...putBack];
  if (undone.length > 0)
    await ctx.say(`a leaf edited the state folder (${undone.join(', ')}); its edits do not count and were undone`);
}
