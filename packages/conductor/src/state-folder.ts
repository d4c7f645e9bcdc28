// The state folder is the ledger's, the tracker's and the user's: a leaf's edits to it are undone, never committed.
import { lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseStatusV2 } from '@leap/core';
import type { RunContext } from './conductor.js';

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

export async function addAll(ctx: RunContext): Promise<void> {
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

export async function readStateStatus(ctx: RunContext, stateRel: string, branch: boolean): Promise<StateStatus> {
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

function isFile(file: string): boolean {
  try {
    return lstatSync(file).isFile();
  } catch {
    return false;
  }
}

// A path as in HEAD goes back to HEAD, one in `before` to its bytes; `known`: a status read since HEAD last moved.
export async function undoStateEdits(
  ctx: RunContext,
  known: StateStatus | undefined,
  before: StateSnapshot,
): Promise<void> {
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
