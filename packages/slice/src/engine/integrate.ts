// Passed balls merged onto leap/SLICE/spine one at a time, each checked byte for byte; then the aggregate jury.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Ball, LiveProof, Slice } from '../definition/slice-schema.js';
import { presentScopeFiles, scopePaths } from './checkout.js';
import { findConsumers, renderConsumers } from './consumers.js';
import { commitTree, git, isAncestor, mergeCommits, mergeTree, resolveCommit, worktreeGit } from './git.js';
import { ignoredEntries, linkEntries, linkedPlaces, withLinked } from './linked.js';
import { proofIdleLimit, runLive, type LiveRun } from './proof.js';
import { pruneWorktreeFolders, summarizeSeats, type JurySummary, type LiveEvidence } from './records.js';
import type { SlicePaths } from './records.js';

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
export async function mergeBall(
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

export interface AggregateInput {
  repo: string;
  paths: SlicePaths;
  slice: Slice;
  stateDir: string;
  env: NodeJS.ProcessEnv;
  /** The slice's base: what the spine's whole change is measured from, to find its consumers. */
  base: string;
  builder: string;
  /** The builder's family, redacted from what the aggregate jury is shown. */
  builderFamily?: string;
  /** The families of the other builders whose work the spine holds: refused from the jury and redacted too. */
  otherBuilderFamilies?: string[];
  skipJurors?: string[];
  reviewers: string[];
  alternates: string[];
  agentsFile: string | null;
  authors: string[];
}

/** The aggregate jury on the spine, in a worktree of the spine branch removed whatever the end. */
export async function aggregateJury(input: AggregateInput): Promise<JurySummary & { leaves: string[] }> {
  const { conveneJury, isTestFile } = await import('@leap/verify');
  const dir = input.paths.worktree('spine');
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  await worktreeGit(input.repo, ['add', '-q', dir, spineBranch(input.slice.id)]);
  try {
    const linked = linkEntries(input.repo, dir, await ignoredEntries(input.repo, input.stateDir));
    const present = input.slice.balls.flatMap((b) => presentScopeFiles(dir, b));
    const tests = present.filter((p) => isTestFile(p));
    const files = present.filter((p) => !isTestFile(p));
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
    try {
      const { builder, otherBuilderFamilies, reviewers, alternates, authors } = input;
      const seated = { builderFamily: builder, otherBuilderFamilies, reviewers, alternates, authors };
      const skip = input.skipJurors === undefined ? {} : { skip: input.skipJurors };
      const intent = `slice ${input.slice.id}: every ball's goal, merged on one spine`;
      const criteria = `Every goal holds together, and the balls' changes fit:\n${goals}${consumers}`;
      const shown = { files: files.length === 0 ? tests : files, tests: files.length === 0 ? [] : tests, cwd: dir };
      const env = { ...input.env, VERI_STATE_DIR: input.stateDir };
      const modelIds = input.builderFamily === undefined ? [] : [input.builderFamily];
      const named = { agentsFile: input.agentsFile ?? undefined, builderName: builder, modelIds, leafKey: 'spine' };
      const redact = { gitAliases: false, redactAuthors: true, eventFields: { slice: input.slice.id } };
      const jury = await conveneJury({ ...seated, ...skip, intent, criteria, ...shown, env, ...named, ...redact });
      const { value, reason, candidate, refused } = jury;
      const leaves = jury.seats.map((s) => s.leaf);
      const seats = summarizeSeats(jury.seats);
      return { ...(live === undefined ? {} : { live }), value, reason, candidate, refused, leaves, seats };
    } catch (error) {
      const reason = `no aggregate jury: ${(error as Error).message}`;
      return { value: 0, reason, candidate: '', seats: [], refused: [], leaves: [] };
    }
  } finally {
    await worktreeGit(input.repo, ['remove', '--force', '--force', dir]).catch(() =>
      rmSync(dir, { recursive: true, force: true }),
    );
    pruneWorktreeFolders(input.paths);
  }
}

async function liveOnSpine(input: AggregateInput, live: LiveProof, dir: string, linked: string[]): Promise<LiveRun> {
  const { sandboxSetting, chooseSandbox, suiteSandbox } = await import('@leap/verify');
  const setting = sandboxSetting(undefined, input.env);
  const bwrap = setting === 'off' ? null : chooseSandbox(setting, input.env).bwrap;
  const sandbox =
    bwrap === null ? null : withLinked(suiteSandbox(dir, input.stateDir, live.network === true), dir, linked);
  const env = { ...input.env, LEAP_SLICE: input.slice.id };
  const at = { cwd: dir, env, stateDir: input.stateDir, name: 'live-spine', idleMs: proofIdleLimit(env), sandbox };
  return runLive(live, { ...at, theirs: linkedPlaces(dir, linked) });
}
