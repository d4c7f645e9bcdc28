// A difference before and after the jury voids it (3.6); a dirty file's ctime, moved by every write, spares a hash.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { runGit, showValue, orElse } from '@leap/core';

/** Keys: git's path bytes as latin1 (one char a byte: names never collide), and HEAD_KEY, which no path can be. */
export type TreeFingerprint = ReadonlyMap<string, string>;
const HEAD_KEY = '\0HEAD';

// Fields before the path in `git status --porcelain=v2` entries: ordinary, renamed or copied, unmerged, untracked.
const FIELDS: Readonly<Record<string, number>> = { 1: 8, 2: 9, u: 10, '?': 1 };

/** One `git status` taking no lock; not `stateDir`, where the jury's supervisors write; null: git cannot read it. */
export async function fingerprintTree(repo: string, stateDir: string, env: NodeJS.ProcessEnv) {
  const args = ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all', '--ignore-submodules=none'];
  const options = { cwd: repo, env, extraEnv: { GIT_OPTIONAL_LOCKS: '0' }, allowFailure: true };
  const ran = await runGit(args, options).catch(() => null);
  if (ran === null || ran.code !== 0) return null;
  return readStatus(repo, ran.bytes.toString('latin1'), excludedPrefix(repo, stateDir));
}

export function changedPaths(before: TreeFingerprint, after: TreeFingerprint): string[] {
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((key) => before.get(key) !== after.get(key));
  return changed.map(displayPath).sort();
}

const LISTED_PATHS = 10;

export function listPaths(paths: readonly string[]): string {
  const shown = paths.slice(0, LISTED_PATHS).map(showValue).join(', ');
  return paths.length > LISTED_PATHS ? `${shown} and ${paths.length - LISTED_PATHS} more` : shown;
}

export function displayPath(key: string): string {
  return key === HEAD_KEY ? 'HEAD' : Buffer.from(key, 'latin1').toString('utf8');
}

function excludedPrefix(repo: string, stateDir: string): string | null {
  const real = (path: string): string => {
    const full = resolve(path);
    const parent = dirname(full);
    return (
      orElse(() => realpathSync.native(full), null) ?? (parent === full ? full : join(real(parent), basename(full)))
    );
  };
  const rel = relative(real(repo), real(stateDir));
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return Buffer.from(`${rel.split(sep).join('/')}/`, 'utf8').toString('latin1');
}

function readStatus(repo: string, output: string, exclude: string | null): TreeFingerprint {
  const print = new Map<string, string>();
  const entries = output.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as string;
    if (entry.startsWith('# branch.oid ')) print.set(HEAD_KEY, entry.slice('# branch.oid '.length));
    const fields = FIELDS[entry.charAt(0)];
    if (fields === undefined) continue;
    const parts = entry.split(' ');
    const status = parts.slice(0, fields).join(' ');
    const path = parts.slice(fields).join(' ');
    if (entry.charAt(0) === '2') i++; // the original path of a rename or copy follows
    if (exclude !== null && (path === exclude.slice(0, -1) || path.startsWith(exclude))) continue;
    // A submodule (its `S` field) or an untracked nested repository (listed whole, `dir/`): what lies under it.
    const nested = path.endsWith('/') || (status !== '?' && parts[2]?.startsWith('S') === true);
    print.set(path, `${status}\0${nested ? folderState(repo, path) : statOf(inRepo(repo, path))}`);
  }
  return print;
}

const inRepo = (repo: string, path: string) => Buffer.concat([Buffer.from(`${repo}/`), Buffer.from(path, 'latin1')]);

function statOf(file: Buffer): string {
  try {
    const stat = lstatSync(file, { bigint: true, throwIfNoEntry: false });
    return stat === undefined ? 'missing' : `${stat.ino}:${stat.mode}:${stat.size}:${stat.ctimeNs}:${stat.mtimeNs}`;
  } catch (error) {
    return `unreadable:${(error as NodeJS.ErrnoException).code ?? 'error'}`;
  }
}

function folderState(repo: string, latin1Path: string): string {
  const hash = createHash('sha256');
  const walk = (dir: Buffer): void => {
    let names: Buffer[];
    try {
      names = readdirSync(dir, { encoding: 'buffer' }).sort(Buffer.compare);
    } catch (error) {
      hash.update(`${dir.toString('latin1')}\0unreadable:${(error as NodeJS.ErrnoException).code ?? 'error'}\n`);
      return;
    }
    for (const name of names) {
      if (name.equals(GIT)) continue;
      const path = Buffer.concat([dir, SLASH, name]);
      const state = statOf(path);
      hash.update(path).update(`\0${state}\n`);
      if ((Number(state.split(':')[1]) & 0o170000) === 0o040000) walk(path);
    }
  };
  walk(inRepo(repo, latin1Path.replace(/\/$/, '')));
  return `tree:${hash.digest('hex')}`;
}

const GIT = Buffer.from('.git');
const SLASH = Buffer.from('/');
