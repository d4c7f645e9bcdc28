// What the repository holds while the jury convenes: HEAD, and every changed or untracked path with its
// git status and its inode's identity, size, mode and change time, outside the state folder. Taken before
// the reviewers start and after they end: any difference voids their verdicts, naming the paths
// (blind-tribunal 3.6: a juror that changed repository bytes is voided; a fingerprint of each file, not a
// set of dirty paths, so a write into an already dirty file counts). The change time (ctime) moves with
// every write, even one that puts the old bytes back, and no program can set it; unlike a hash of the
// contents it costs one lstat however large the file.
import { lstatSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { childProcess } from '../lazy-builtins.js';

/** Path (or `HEAD`) -> what it was: its status fields and its inode's identity, size, mode and change time. */
export type TreeFingerprint = ReadonlyMap<string, string>;

/** Fields before the path in `git status --porcelain=v2` entries: ordinary, renamed or copied, unmerged. */
const FIELDS: Readonly<Record<string, number>> = { 1: 8, 2: 9, u: 10 };

/**
 * Fingerprint the working tree of `repo` (one `git status`, taking no lock), leaving out `stateDir`, where
 * the jury's own supervisors write. Null when `repo` is not a git work tree or git cannot read it.
 */
export function fingerprintTree(repo: string, stateDir: string, env: NodeJS.ProcessEnv): Promise<TreeFingerprint | null> {
  const args = ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all', '--ignore-submodules=none'];
  return new Promise((resolve) => {
    childProcess().execFile('git', args, { cwd: repo, env: { ...env, GIT_OPTIONAL_LOCKS: '0' }, encoding: 'latin1', maxBuffer: 256 * 1024 * 1024 }, (error, stdout) => {
      resolve(error === null ? readStatus(repo, stdout, excludedPrefix(repo, stateDir)) : null);
    });
  });
}

/** The paths (and `HEAD`) whose fingerprint differs, sorted. */
export function changedPaths(before: TreeFingerprint, after: TreeFingerprint): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((path) => before.get(path) !== after.get(path)).sort();
}

// `stateDir` relative to the repository, as git prints paths (`.tdd/`), or null when it lies outside.
function excludedPrefix(repo: string, stateDir: string): string | null {
  const rel = relative(repo, stateDir);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return null;
  return `${rel.split(sep).join('/')}/`;
}

// Paths are read as latin1, one char per byte, so that any file name round-trips to the file system.
function readStatus(repo: string, output: string, exclude: string | null): TreeFingerprint {
  const print = new Map<string, string>();
  const entries = output.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as string;
    if (entry.startsWith('# branch.oid ')) print.set('HEAD', entry.slice('# branch.oid '.length));
    const fields = FIELDS[entry.charAt(0)];
    let status: string;
    let path: string;
    if (fields !== undefined) {
      const parts = entry.split(' ');
      status = parts.slice(0, fields).join(' ');
      path = parts.slice(fields).join(' ');
      if (entry.charAt(0) === '2') i++; // the original path of a rename or copy follows
    } else if (entry.startsWith('? ')) {
      status = '?';
      path = entry.slice(2);
    } else {
      continue;
    }
    if (exclude !== null && (path === exclude.slice(0, -1) || path.startsWith(exclude))) continue;
    print.set(Buffer.from(path, 'latin1').toString('utf8'), `${status}\0${fileState(repo, path)}`);
  }
  return print;
}

function fileState(repo: string, latin1Path: string): string {
  const file = Buffer.concat([Buffer.from(`${repo}/`), Buffer.from(latin1Path, 'latin1')]);
  try {
    const stat = lstatSync(file, { bigint: true, throwIfNoEntry: false });
    return stat === undefined ? 'missing' : `${stat.ino}:${stat.mode}:${stat.size}:${stat.ctimeNs}:${stat.mtimeNs}`;
  } catch (error) {
    return `unreadable:${(error as NodeJS.ErrnoException).code ?? 'error'}`;
  }
}
