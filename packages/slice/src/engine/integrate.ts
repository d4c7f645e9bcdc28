// Passed balls merged onto leap/SLICE/spine in plan order, as far as every earlier ball has ended, one at a time, each
// checked byte for byte; then the aggregate jury. The engine applies the results they return.
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isoTimestamp } from '@leap/core';
import type { Ball, LiveProof } from '../definition/slice-schema.js';
import { presentScopeFiles, scopePaths } from './checkout.js';
import { findConsumers, renderConsumers } from './consumers.js';
import { commitTree, git, isAncestor, mergeCommits, mergeTree, resolveCommit, worktreeGit } from './git.js';
import { ignoredEntries, linkEntries, linkedPlaces, withLinked } from './linked.js';
import { proofIdleLimit, runLive } from './proof.js';
import { sitJury } from './ball-jury.js';
import type { RunBuilder } from './agents.js';
import { pruneWorktreeFolders, readRecord, writeRecord, type JurySummary, type LiveEvidence } from './records.js';
import type { ResultRecord, RoundRecord, SlicePaths } from './records.js';
import { progressOf, type BallsProgress } from './scheduler.js';
import type { EngineContext } from './slice-engine.js';

export type MergeOutcome = { ok: true; commit: string; already: boolean } | { ok: false; reason: string };

export const spineBranch = (slice: string) => `leap/${slice}/spine`;

export async function ensureSpine(repo: string, slice: string, base: string): Promise<string> {
  const ref = `refs/heads/${spineBranch(slice)}`;
  const tip = await resolveCommit(repo, ref);
  if (tip !== null) return tip;
  await git(repo, ['update-ref', ref, base, '']);
  return base;
}

/** No checkout; `fresh`: the ball passed in this run, so it cannot be on the spine yet (no ancestry check). */
async function mergeBall(
  repo: string,
  slice: string,
  ball: Ball,
  commit: string,
  tip: string,
  fresh: boolean,
): Promise<MergeOutcome> {
  const ref = `refs/heads/${spineBranch(slice)}`;
  if (!fresh && (await isAncestor(repo, commit, tip))) return { ok: true, commit: tip, already: true };
  const tree = await mergeTree(repo, tip, commit);
  if (tree === null) return { ok: false, reason: `merging ${ball.id} onto ${spineBranch(slice)} conflicts` };
  const [merged, diff] = await Promise.all([
    commitTree(repo, tree, tip, commit, `leap: merge ${ball.id} onto the spine of ${slice}`),
    git(repo, ['diff', '--name-only', '-z', tree, commit, '--', ...scopePaths(ball)]),
  ]);
  const differ = diff.split('\0').filter((p) => p !== '');
  if (differ.length > 0) {
    const lost = `after the merge, ${differ.join(', ')} differ from the ball's candidate`;
    return { ok: false, reason: `${lost}: a merge must not drop a lane's bytes` };
  }
  // Compare-and-swap: the spine moves only from the tip this merge was made on.
  await git(repo, ['update-ref', ref, merged, tip]);
  return { ok: true, commit: merged, already: false };
}

/** A ball's start: `base` with its dependencies' commits merged in, without a checkout; throws when they conflict. */
export async function mergeStart(repo: string, base: string, deps: string[], commits: string[]): Promise<string> {
  let start = base;
  for (const commit of commits) {
    if (await isAncestor(repo, commit, start)) continue;
    if (await isAncestor(repo, start, commit)) {
      start = commit;
      continue;
    }
    const merged = await mergeCommits(repo, start, commit, `leap: start from ${deps.join(', ')}`);
    if (merged === null) throw new Error(`the work of ${deps.join(', ')} does not merge`);
    start = merged;
  }
  return start;
}

/** `base`: what the spine's whole change is measured from, to find its consumers. */
type SpineJuryInput = Pick<EngineContext, 'slice' | 'paths' | 'stateDir' | 'env' | 'agents' | 'authors' | 'say'> & {
  repo: string;
  base: string;
  order: readonly string[];
  skipJurors?: string[];
};

/** The aggregate jury in a worktree of the spine (removed whatever the end), of no family of `builder` or `others`. */
async function aggregateJury(input: SpineJuryInput, builder: RunBuilder, others: string[]) {
  const dir = input.paths.worktree('spine');
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  await worktreeGit(input.repo, ['add', '-q', dir, spineBranch(input.slice.id)]);
  try {
    const linked = linkEntries(input.repo, dir, await ignoredEntries(input.repo, input.stateDir));
    const present = input.slice.balls.flatMap((b) => presentScopeFiles(dir, b));
    const goals = input.slice.balls.map((b) => `- ${b.id}: ${b.goal}`).join('\n');
    const diff = await git(dir, ['diff', '--name-only', '-z', input.base, 'HEAD']);
    const changed = diff.split('\0').filter((p) => p !== '');
    const scopes = new Set(input.slice.balls.flatMap((b) => scopePaths(b)));
    const consumers = renderConsumers(await findConsumers(dir, changed, scopes));
    // The slice's live proof on the spine, after every merge and before the aggregate jury: exit 0 required.
    let live: LiveEvidence | undefined;
    if (input.slice.live !== undefined) {
      const { lines, cannotRun, ...ran } = await liveOnSpine(input, input.slice.live, dir, linked);
      live = ran;
      if (ran.code !== 0) {
        // One that could not run judged nothing: the slice is held, not refused.
        const why = `${ran.note ?? `it exited ${ran.code}`}${lines === '' ? '' : `: ${lines}`}`;
        const reason = `the slice's live proof failed on the spine: ${why}`;
        return { value: cannotRun === null ? -1 : 0, reason, candidate: '', seats: [], refused: [], leaves: [], live };
      }
    }
    const { reviewers, alternates, file } = input.agents;
    const seated = { builderFamily: builder.name, otherBuilderFamilies: others, reviewers, alternates };
    const intent = `slice ${input.slice.id}: every ball's goal, merged on one spine`;
    const criteria = `Every goal holds together, and the balls' changes fit:\n${goals}${consumers}`;
    const env = { ...input.env, VERI_STATE_DIR: input.stateDir };
    const named = { agentsFile: file ?? undefined, builderName: builder.name, modelIds: [builder.family] };
    const rest = { authors: input.authors, skip: input.skipJurors, eventFields: { slice: input.slice.id } };
    const options = { ...seated, intent, criteria, env, ...named, leafKey: 'spine', ...rest };
    return await sitJury(dir, present, options, ['no aggregate jury', ''], live);
  } finally {
    await worktreeGit(input.repo, ['remove', '--force', '--force', dir]).catch(() =>
      rmSync(dir, { recursive: true, force: true }),
    );
    pruneWorktreeFolders(input.paths);
  }
}

async function liveOnSpine(input: SpineJuryInput, live: LiveProof, dir: string, linked: string[]) {
  const { sandboxSetting, chooseSandbox, suiteSandbox } = await import('@leap/verify');
  const setting = sandboxSetting(undefined, input.env);
  const bwrap = setting === 'off' ? null : chooseSandbox(setting, input.env).bwrap;
  const sandbox =
    bwrap === null ? null : withLinked(suiteSandbox(dir, input.stateDir, live.network === true), dir, linked);
  const env = { ...input.env, LEAP_SLICE: input.slice.id };
  const at = { cwd: dir, env, stateDir: input.stateDir, name: 'live-spine', idleMs: proofIdleLimit(env), sandbox };
  return runLive(live, { ...at, theirs: linkedPlaces(dir, linked) });
}

type MergeInput = Pick<EngineContext, 'slice' | 'paths' | 'log' | 'say'> & { repo: string; order: readonly string[] };

export type MergeState = { cursor: number; spineTip: string };

/** Merge what can be merged now; returns the new state and the results it changed (written already). */
export async function mergeReady(input: MergeInput, balls: BallsProgress, from: MergeState) {
  let { cursor, spineTip } = from;
  const results = new Map<string, ResultRecord>();
  while (cursor < input.order.length) {
    const id = input.order[cursor] as string;
    const state = progressOf(balls, id);
    if (state.result === null) break;
    cursor++;
    const result = state.result;
    if (result.receipt !== 1 || result.commit === null) continue;
    const merged = await mergeBall(input.repo, input.slice.id, state.ball, result.commit, spineTip, !state.reused);
    const at = { slice: input.slice.id, ball: id };
    if (!merged.ok) {
      const reason = `refused at the spine: ${merged.reason}`;
      const refused: ResultRecord = { ...result, receipt: -1, reason, merged: null };
      writeRecord(input.paths.result(id), refused);
      results.set(id, refused);
      input.log.emit('receipt', { ...at, value: -1, candidate: result.candidate, evidence: reason });
      input.say(`ball ${id}: -1 refused at the spine: ${merged.reason}`);
      continue;
    }
    spineTip = merged.commit;
    if (result.merged !== merged.commit && !(merged.already && result.merged !== null)) {
      const landed: ResultRecord = { ...result, merged: merged.commit };
      writeRecord(input.paths.result(id), landed);
      results.set(id, landed);
    }
    if (!merged.already) {
      input.log.emit('merge', { ...at, commit: merged.commit, candidate: result.candidate as string });
      input.say(`ball ${id}: merged onto ${spineBranch(input.slice.id)} at ${merged.commit.slice(0, 12)}`);
    }
  }
  return { cursor, spineTip, results };
}

/** The aggregate jury on `spineCommit` (a pass recorded for it stands), of no family whose builder's work it holds. */
export async function aggregateSpine(input: SpineJuryInput, spineCommit: string) {
  const { agents, order, say } = input;
  const kept = await Promise.all(order.map((id) => keptBuilderFamilies(input.repo, input.paths, id, spineCommit)));
  const built = new Set(kept.flat());
  const builder = agents.builders.find((b) => built.has(b.family)) ?? agents.builder;
  const others = [...built].filter((f) => f !== builder.family);
  const families = [builder.family, ...others].join(', ');
  if (others.length > 0)
    say(`aggregate jury: the spine holds work of builders of ${families}: no reviewer of those families sits`);
  const earlier = readRecord<JurySummary & { spine: string }>(input.paths.aggregate);
  if (earlier !== null && earlier.value === 1 && earlier.spine === spineCommit) {
    say(`aggregate jury: passed on an earlier run for spine ${spineCommit.slice(0, 12)}`);
    return { summary: earlier as JurySummary, leaves: [] as string[] };
  }
  say(`aggregate jury: convened on ${spineBranch(input.slice.id)} at ${spineCommit.slice(0, 12)}`);
  const { leaves, ...summary } = await aggregateJury(input, builder, others);
  writeRecord(input.paths.aggregate, { ...summary, spine: spineCommit, ts: isoTimestamp() });
  say(`aggregate jury: ${summary.value}: ${summary.reason}`);
  return { summary: summary as JurySummary, leaves };
}

// A candidate built on another builder's kept work (a fall-over, a held ball rerun) is judged by neither's family.
export async function keptBuilderFamilies(repo: string, paths: SlicePaths, ball: string, tip: string) {
  const dir = paths.ball(ball);
  if (!existsSync(dir)) return [];
  const episodes = readdirSync(dir).filter((f) => /^episode-\d+$/.test(f));
  const folders = [dir, ...episodes.map((f) => join(dir, f))];
  const families = new Set<string>();
  for (const folder of folders)
    for (let n = 1; n <= 4; n++) {
      const round = readRecord<RoundRecord>(join(folder, `round-${n}.json`));
      const family = round?.builder?.family;
      if (round?.commit == null || typeof family !== 'string' || families.has(family)) continue;
      if (await isAncestor(repo, round.commit, tip)) families.add(family);
    }
  return [...families];
}

export function builtBy(kept: readonly string[], builder: { family: string }): { builtBy?: string[] } {
  const families = kept.filter((f) => f !== builder.family);
  return families.length === 0 ? {} : { builtBy: families };
}
