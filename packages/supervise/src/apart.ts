// A writer kept apart (CONTRACT section 13) writes a copy put back at its end: docs/decisions/writer-apart.md;
// copyTree also makes a reader's copy.
import { chmodSync, constants, copyFileSync, lstatSync, lutimesSync, mkdirSync, readdirSync } from 'node:fs';
import { readlinkSync, renameSync, rmdirSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { killPoint, readFileIfExists, runGitSync, writeFileAtomic, orElse } from '@leap/core';
import { hostView } from './once-view.js';
import { inside } from './sandbox-home.js';
import { DEFAULT_LINK_READ_ONLY, DEFAULT_STATE_DIRS, mainRepoRoot } from './sandbox-plan.js';

/** Paths (from the tree) the leaf wrote or removed; `clashed`: changed by another too, the leaf's in `clashedDir`. */
export type ApartEnd = { wrote: string[]; clashed: string[]; clashedDir: string };

/** Left out of the copy: `top` at its top, `own` anywhere (bound from the tree); entries' signatures then. */
type Manifest = { tree: string; top: string[]; own: string[] } & Record<'copy' | 'real', Record<string, string>>;
type Plan = { wrote: string[]; removed: string[]; clashed: string[]; done: boolean };

const files = (copy: string) => ({ manifest: `${copy}.json`, plan: `${copy}.wrote.json`, clashed: `${copy}.clashed` });

/** Type, inode, size and change time: any write, chmod or rename over changes it. */
function signature(path: string): string | null {
  const s = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  return s === undefined ? null : `${s.mode}:${s.ino}:${s.size}:${s.ctimeNs}`;
}

/** The ignored entries of the work tree at `tree` (a folder once, without its `/`); none outside a repository. */
export function ignoredEntries(tree: string): string[] {
  const args = ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory', '--no-empty-directory'];
  const listed = runGitSync(args, { cwd: tree, allowFailure: true });
  return listed.code === 0 ? listed.stdout.split('\0').flatMap((p) => (p === '' ? [] : [p.replace(/\/$/, '')])) : [];
}

/** The copy of `tree` at `copy`, leaving out its ignored entries: returned, to be bound from the tree read-write. */
export function makeApart(tree: string, copy: string, stateDirs: readonly string[] = DEFAULT_STATE_DIRS): string[] {
  clearApart(copy);
  const top = ['.git', ...stateDirs];
  // Not a repository: the dependency folders alone are left out (copyTree's links).
  const own = ignoredEntries(tree).filter((p) => !top.includes(p.split('/')[0] as string));
  mkdirSync(copy, { recursive: true });
  chmodSync(copy, statSync(tree).mode & 0o7777);
  const kept: Manifest = { tree, top, own, copy: {}, real: {} };
  const record = (src: string, dst: string): void => {
    kept.real[relative(tree, src)] = signature(src) as string;
    kept.copy[relative(tree, src)] = signature(dst) as string;
  };
  const linked = copyTree(tree, copy, { stateDirs, skip: [...own.map((p) => join(tree, p)), copy], record });
  kept.own = [...own, ...linked.map((p) => relative(tree, p))];
  writeFileAtomic(files(copy).manifest, JSON.stringify(kept), { durable: false });
  return kept.own.map((p) => join(tree, p));
}

/** Forget an earlier leaf's copy and put-back (its clashed versions stay). */
export function clearApart(copy: string): void {
  const { manifest, plan } = files(copy);
  for (const f of [copy, manifest, plan]) rmSync(f, { recursive: true, force: true });
}

/** Put the leaf's changes back (idempotent: a resumed run calls it again); null when `copy` was never made. */
export function putBack(copy: string): ApartEnd | null {
  const where = files(copy);
  const read = <T>(file: string): T | null => JSON.parse(readFileIfExists(file) ?? 'null') as T | null;
  const kept = read<Manifest>(where.manifest);
  let plan = read<Plan>(where.plan);
  if (plan === null) {
    if (kept === null) return null;
    plan = diff(copy, kept);
    writeFileAtomic(where.plan, JSON.stringify(plan), { durable: false });
    killPoint('LEAP_APART', 'plan written');
  }
  if (!plan.done && kept !== null) {
    apply(copy, kept, plan);
    plan.done = true;
    writeFileAtomic(where.plan, JSON.stringify(plan), { durable: false });
    killPoint('LEAP_APART', 'put back');
    rmSync(where.manifest, { force: true });
  }
  // Only once the plan names them: a resumed run finds them moved, not the tree's.
  for (const p of plan.clashed) move(join(copy, p), join(where.clashed, p));
  rmSync(copy, { recursive: true, force: true });
  const { clashed } = plan;
  const wrote = [...plan.wrote, ...plan.removed].filter((p) => !clashed.includes(p)).sort();
  return { wrote, clashed, clashedDir: where.clashed };
}

function diff(copy: string, kept: Manifest): Plan {
  const now = new Map<string, string>();
  const own = new Set(kept.own);
  const walk = (rel: string): void => {
    for (const entry of readdirSync(rel === '' ? copy : join(copy, rel), { withFileTypes: true })) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if ((rel === '' && kept.top.includes(entry.name)) || own.has(path)) continue;
      now.set(path, signature(join(copy, path)) as string);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk('');
  // A folder counts once made; its entries say the rest.
  const wrote = [...now].filter(([p, sig]) => (isDir(sig) ? !(p in kept.copy) : kept.copy[p] !== sig)).map(([p]) => p);
  return { wrote, removed: Object.keys(kept.copy).filter((p) => !now.has(p)), clashed: [], done: false };
}

const isDir = (sig: string) => (Number(sig.split(':')[0]) & 0o170000) === 0o040000;

function move(from: string, to: string): void {
  if (lstatSync(from, { throwIfNoEntry: false }) === undefined) return;
  mkdirSync(dirname(to), { recursive: true });
  killPoint('LEAP_APART', `move ${from}`);
  renameSync(from, to);
}

// Removals first (a folder the leaf made a file must be empty); a path changed by another since the copy stays theirs.
function apply(copy: string, kept: Manifest, plan: Plan): void {
  const at = (p: string) => lstatSync(join(kept.tree, p), { throwIfNoEntry: false });
  const theirs = (p: string) => {
    const [now, was] = [signature(join(kept.tree, p)), kept.real[p] ?? null];
    // A folder gone is one emptied and removed here, before a crash, or by someone who left nothing in it.
    return now !== was && !(now === null && was !== null && isDir(was));
  };
  const clash = (p: string) => plan.clashed.includes(p) || plan.clashed.push(p);
  for (const p of [...plan.removed].sort((a, b) => b.split('/').length - a.split('/').length)) {
    if (at(p)?.isDirectory() === true) rmdirQuietly(join(kept.tree, p));
    else if (at(p) !== undefined)
      theirs(p) ? clash(p) : (killPoint('LEAP_APART', `rm ${p}`), rmSync(join(kept.tree, p)));
  }
  for (const p of plan.wrote) {
    const kind = lstatSync(join(copy, p), { throwIfNoEntry: false });
    if (kind === undefined) continue; // moved before a crash
    if (kind.isDirectory()) mkdirSync(join(kept.tree, p), { recursive: true });
    else if (at(p)?.isDirectory() === true ? !rmdirQuietly(join(kept.tree, p)) : theirs(p)) clash(p);
    else move(join(copy, p), join(kept.tree, p));
  }
}

const rmdirQuietly = (dir: string): boolean => orElse(() => rmdirSync(dir) === undefined, false);

/** A reader's copy less `.git`, state and `linkReadOnly` folders (returned); modes, times kept, files cloned. */
export function copyTree(
  tree: string,
  dest: string,
  options: {
    stateDirs?: readonly string[];
    linkReadOnly?: readonly string[];
    skip?: readonly string[];
    record?: (src: string, dst: string) => void;
  } = {},
): string[] {
  const stateDirs = new Set(options.stateDirs ?? DEFAULT_STATE_DIRS);
  const link = new Set(options.linkReadOnly ?? DEFAULT_LINK_READ_ONLY);
  const skip = new Set((options.skip ?? []).map((p) => resolve(p)));
  const linked: string[] = [];
  // A link leading out of the repository (one planted to a socket's folder in /tmp) stays a link, unresolved inside.
  const repo = mainRepoRoot(tree, hostView) ?? tree;
  const ours = (link: string): boolean => {
    const real = hostView.realpath(link);
    return real !== null && inside(real, repo) && hostView.kind(real) === 'dir';
  };
  const walk = (from: string, to: string, top: boolean): void => {
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      const src = join(from, entry.name);
      const dst = join(to, entry.name);
      if (top && (entry.name === '.git' || stateDirs.has(entry.name))) continue;
      if (skip.has(src)) continue;
      if (link.has(entry.name) && (entry.isDirectory() || (entry.isSymbolicLink() && ours(src)))) {
        linked.push(src);
        continue;
      }
      if (entry.isSymbolicLink()) {
        symlinkSync(readlinkSync(src), dst);
        try {
          const { atime, mtime } = lstatSync(src);
          lutimesSync(dst, atime, mtime); // times of a link are a nicety
        } catch {}
      } else if (entry.isDirectory()) {
        const stat = statSync(src);
        mkdirSync(dst, { mode: stat.mode & 0o7777 });
        walk(src, dst, false);
        utimesSync(dst, stat.atime, stat.mtime);
      } else if (entry.isFile()) {
        copyFileSync(src, dst, constants.COPYFILE_FICLONE);
        const stat = statSync(src);
        utimesSync(dst, stat.atime, stat.mtime);
      } else continue; // Sockets, fifos and devices: a reader has no use for another process's endpoints.
      options.record?.(src, dst);
    }
  };
  walk(tree, dest, true);
  return linked;
}
