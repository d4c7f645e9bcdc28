// What the engine reads in a ball's checkout: the candidate, what changed since the round's start, undo.
import { statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { parseStatusV2, orElse, runGit } from '@leap/core';
import type { Ball } from '../definition/slice-schema.js';
import { git } from './git.js';

/** A scope path as git names it: slash-separated, no `./`, no doubled slashes. */
export function normalScopePath(path: string): string {
  return posix.normalize(path.replace(/\\/g, '/')).replace(/^\.\//, '').replace(/\/$/, '');
}

export const scopePaths = (ball: Ball): string[] => ball.scope.map((s) => normalScopePath(s.path));

/** The scope files present in `dir` (a deleted or not yet created file is not part of the candidate). */
export function presentScopeFiles(dir: string, ball: Ball): string[] {
  return scopePaths(ball).filter((p) => orElse(() => statSync(join(dir, p)).isFile(), null) === true);
}

/** @leap/verify's candidate hash over the scope files present in `dir`, so the jury's is the same. */
export async function hashCandidate(dir: string, ball: Ball): Promise<string> {
  const { candidateHash, readCandidate } = await import('@leap/verify');
  const files = presentScopeFiles(dir, ball);
  return candidateHash(files.length === 0 ? [] : readCandidate(dir, files, []));
}

// Linked entries are filtered out after listing, not by pathspec: git 2.39's `add` exits 1 excluding an ignored path.
const notLinked = (linked: readonly string[]) => (path: string) =>
  !linked.some((name) => path === name || path.startsWith(`${name}/`));

/** Stage everything and list the paths that differ from `start` (the builder's own commits included). */
export async function stageChanges(dir: string, start: string, linked: readonly string[] = []): Promise<string[]> {
  await git(dir, ['add', '-A']);
  const out = await git(dir, ['diff', '--cached', '--name-only', '--no-renames', '-z', start]);
  const paths = out.split('\0').filter((p) => p !== '');
  const mine = notLinked(linked);
  // A link the checkout's ignore rules do not cover (`node_modules/` matches a folder, not the link): unstaged.
  const links = paths.filter((p) => !mine(p)).map((p) => `:(top,literal)${p}`);
  if (links.length > 0) await git(dir, ['rm', '-r', '-q', '--cached', '--ignore-unmatch', '--', ...links]);
  return paths.filter(mine);
}

/** What in `dir` differs from what is staged (a proof that wrote files). */
export async function unstagedChanges(dir: string, linked: readonly string[] = []): Promise<string[]> {
  const out = await git(dir, ['status', '--porcelain=v1', '-z', '--untracked-files=all']);
  return out
    .split('\0')
    .filter((p) => p.length > 3 && p[1] !== ' ')
    .map((p) => p.slice(3))
    .filter(notLinked(linked));
}

// No builder hooks, and no `maintenance run --auto` per commit (the local runner runs it once, at close).
const commit = (dir: string, message: string) =>
  git(dir, ['-c', 'maintenance.auto=false', 'commit', '-q', '--no-verify', '--allow-empty', '-m', message]);

export async function commitStaged(dir: string, message: string): Promise<string> {
  await commit(dir, message);
  return (await git(dir, ['rev-parse', 'HEAD'])).trim();
}

/** Commit, then one `status --porcelain=v2 --branch` gives the sha and the paths a proof wrote after the staging. */
export async function commitAndCheck(dir: string, message: string, linked: readonly string[] = []) {
  await commit(dir, message);
  const status = readStatusV2(await git(dir, ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all']));
  const dirty = status.dirty.filter(notLinked(linked));
  return { commit: status.head ?? (await git(dir, ['rev-parse', 'HEAD'])).trim(), dirty };
}

export function readStatusV2(out: string): { head: string | null; dirty: string[] } {
  const status = parseStatusV2(out);
  return { head: status.oid, dirty: status.entries.filter((e) => e.y !== '.').map((e) => e.path) };
}

const spare = (name: string) => ['-e', `/${name.replace(/([\\*?[!#])/g, '\\$1')}`];
const clean = (dir: string, linked: readonly string[]) => git(dir, ['clean', '-q', '-fd', ...linked.flatMap(spare)]);

export async function undoTo(dir: string, start: string, linked: readonly string[] = []): Promise<void> {
  await git(dir, ['reset', '-q', '--hard', start]);
  await clean(dir, linked);
}

/** The work tree back to the index (staged stays): files a live proof wrote or changed besides the candidate. */
export async function restoreToIndex(dir: string, linked: readonly string[] = []): Promise<void> {
  await git(dir, ['checkout', '-q', '--', '.']);
  await clean(dir, linked);
}

type Lines = readonly (readonly [number, number])[];
/** Changed ranges of `path` outside `lines`, in the start's numbering; a pure insertion after line N is `[N, N]`. */
export async function changesOutsideLines(dir: string, start: string, path: string, lines: Lines, to?: string) {
  const [cached, end] = to === undefined ? [['--cached'], []] : [[], [to]];
  const diff = await git(dir, ['diff', ...cached, '--no-color', '--no-ext-diff', '-U0', start, ...end, '--', path]);
  const outside: [number, number][] = [];
  for (const match of diff.matchAll(/^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/gm)) {
    const from = Number(match[1]);
    const count = match[2] === undefined ? 1 : Number(match[2]);
    const last = count === 0 ? from : from + count - 1;
    if (!lines.some(([a, b]) => from >= a - (count === 0 ? 1 : 0) && last <= b)) outside.push([from, last]);
  }
  return outside;
}

// A ball's candidate hash read from a commit (no checkout): a passed ball's bytes are checked on every run.
export async function candidateAt(repo: string, commit: string, ball: Ball): Promise<string> {
  const { candidateHash } = await import('@leap/verify');
  const paths = scopePaths(ball);
  const listing = await git(repo, ['ls-tree', '-r', '-z', commit, '--', ...paths]);
  const files = [];
  for (const entry of listing.split('\0').filter((e) => e !== '')) {
    const [meta, path] = entry.split('\t') as [string, string];
    const [, type, sha] = meta.split(' ');
    if (type !== 'blob' || !paths.includes(path)) continue;
    const { bytes } = await runGit(['cat-file', 'blob', sha as string], { cwd: repo, isolate: true, ceiling: true });
    files.push({ path, bytes, kind: 'file' as const });
  }
  return candidateHash(files);
}
