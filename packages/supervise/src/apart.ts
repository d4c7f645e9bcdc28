// A writer kept apart (CONTRACT section 13): it writes a copy bound at its tree's path; its changes come back at its end,
// so every other change to the tree meanwhile is known not to be its own. docs/decisions/writer-apart.md.
import { lstatSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync, chmodSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { readFileIfExists, runGitSync, writeFileAtomic } from '@leap/core';
import { copyTree } from './sandbox.js';
import { DEFAULT_STATE_DIRS } from './sandbox-plan.js';

/** What came back: paths (relative to the tree) the leaf wrote or removed, and those someone else changed too. */
export interface ApartEnd {
  wrote: string[];
  /** Kept as the other writer left them in the tree; the leaf's version (if it has one) lies under `clashedDir`. */
  clashed: string[];
  clashedDir: string;
}

interface Manifest {
  tree: string;
  /** Skipped at the copy's top (`.git`, state folders) and anywhere (ignored entries, bound from the tree itself). */
  top: string[];
  own: string[];
  /** Each copied entry's signature, in the copy and in the tree, when the copy was made. */
  copy: Record<string, string>;
  real: Record<string, string>;
}

interface Plan {
  wrote: string[];
  removed: string[];
  clashed: string[];
  done: boolean;
}

const files = (copy: string) => ({ manifest: `${copy}.json`, plan: `${copy}.wrote.json`, clashed: `${copy}.clashed` });

/** Type, inode, size and change time: any write, chmod or rename over changes it. */
function signature(path: string): string | null {
  const s = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  return s === undefined ? null : `${s.mode}:${s.ino}:${s.size}:${s.ctimeNs}`;
}

/** The copy of `tree` at `copy`, leaving out its ignored entries: returned, to be bound from the tree read-write. */
export function makeApart(tree: string, copy: string, stateDirs: readonly string[] = DEFAULT_STATE_DIRS): string[] {
  clearApart(copy);
  const { manifest } = files(copy);
  const top = ['.git', ...stateDirs];
  let ignored: string[] = [];
  try {
    ignored = runGitSync(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory', '--no-empty-directory'], { cwd: tree }).stdout.split('\0');
  } catch {
    // Not a repository: the dependency folders alone are left out (copyTree's links).
  }
  const ownRel = ignored.map((p) => p.replace(/\/$/, '')).filter((p) => p !== '' && !top.includes(p.split('/')[0] as string));
  mkdirSync(copy, { recursive: true });
  chmodSync(copy, statSync(tree).mode & 0o7777);
  const kept: Manifest = { tree, top, own: [], copy: {}, real: {} };
  const record = (src: string, dst: string): void => {
    const rel = relative(tree, src);
    kept.real[rel] = signature(src) as string;
    kept.copy[rel] = signature(dst) as string;
  };
  const linked = copyTree(tree, copy, { stateDirs, skip: [...ownRel.map((p) => join(tree, p)), copy], record });
  kept.own = [...ownRel, ...linked.map((p) => relative(tree, p))];
  writeFileSync(manifest, JSON.stringify(kept));
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
  const text = readFileIfExists(where.plan);
  let plan = text === null ? null : (JSON.parse(text) as Plan);
  const manifestText = readFileIfExists(where.manifest);
  const kept = manifestText === null ? null : (JSON.parse(manifestText) as Manifest);
  if (plan === null) {
    if (kept === null) return null;
    plan = diff(copy, kept);
    writeFileAtomic(where.plan, JSON.stringify(plan), { durable: false });
  }
  if (!plan.done && kept !== null) {
    apply(copy, kept.tree, plan, where.clashed);
    plan.done = true;
    writeFileAtomic(where.plan, JSON.stringify(plan), { durable: false });
    rmSync(where.manifest, { force: true });
  }
  rmSync(copy, { recursive: true, force: true });
  return { wrote: [...plan.wrote, ...plan.removed].sort(), clashed: plan.clashed, clashedDir: where.clashed };
}

function diff(copy: string, kept: Manifest): Plan {
  const now = new Map<string, string>();
  const walk = (rel: string): void => {
    for (const entry of readdirSync(rel === '' ? copy : join(copy, rel), { withFileTypes: true })) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if ((rel === '' && kept.top.includes(entry.name)) || kept.own.includes(path)) continue;
      now.set(path, signature(join(copy, path)) as string);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk('');
  const isDir = (sig: string | undefined) => sig !== undefined && (Number(sig.split(':')[0]) & 0o170000) === 0o040000;
  const wrote = [...now].filter(([p, sig]) => (isDir(sig) ? !(p in kept.copy) : kept.copy[p] !== sig)).map(([p]) => p);
  const removed = Object.keys(kept.copy).filter((p) => !now.has(p));
  // A file both changed: the tree's stays. Folders are made or removed only when that loses nothing.
  const clashed = [...wrote, ...removed].filter((p) => !isDir(now.get(p) ?? kept.copy[p]) && signature(join(kept.tree, p)) !== (kept.real[p] ?? null));
  const theirs = new Set(clashed);
  return { wrote: wrote.filter((p) => !theirs.has(p)), removed: removed.filter((p) => !theirs.has(p)), clashed, done: false };
}

function apply(copy: string, tree: string, plan: Plan, clashedDir: string): void {
  const move = (from: string, to: string): void => {
    if (lstatSync(from, { throwIfNoEntry: false }) === undefined) return; // moved before a crash
    mkdirSync(dirname(to), { recursive: true });
    if (lstatSync(from).isDirectory()) mkdirSync(to, { recursive: true });
    else {
      if (lstatSync(to, { throwIfNoEntry: false })?.isDirectory() === true) rmSync(to, { recursive: true });
      renameSync(from, to);
    }
  };
  for (const p of plan.wrote) move(join(copy, p), join(tree, p));
  for (const p of [...plan.removed].sort((a, b) => b.split('/').length - a.split('/').length)) {
    const path = join(tree, p);
    if (lstatSync(path, { throwIfNoEntry: false })?.isDirectory() !== true) rmSync(path, { force: true });
    else {
      try {
        rmdirSync(path);
      } catch {
        // Not empty: someone else's files are in it.
      }
    }
  }
  for (const p of plan.clashed) move(join(copy, p), join(clashedDir, p));
}
