// Where a scope path leads on disk: out of the repository, into .git or through a file is a path no ball can own.
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { orElse } from '@leap/core';
import { normalizeScopePath, scopePathProblem } from './scope-path.js';

/** The path's state in the checkout: a file, absent, or a problem phrase (`leads out of...`). */
export type PathState = { kind: 'file' } | { kind: 'absent' } | { kind: 'problem'; problem: string };

function inside(rootReal: string, target: string): string | null {
  const rel = relative(rootReal, target);
  if (rel === '') return '';
  if (rel === '..' || rel.startsWith(`..${sep}`) || rel.startsWith(sep)) return null;
  return rel;
}

function lstatOrNull(file: string): Stats | null {
  try {
    return lstatSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

export function resolveInRepo(root: string, path: string): PathState {
  const why = scopePathProblem(path);
  if (why !== null) return { kind: 'problem', problem: why };
  const rootReal = realpathSync(root);
  const parts = normalizeScopePath(path).split('/');
  for (let i = 0; i < parts.length; i++) {
    const prefix = parts.slice(0, i + 1).join('/');
    const at = join(rootReal, prefix);
    const stat = lstatOrNull(at);
    if (stat === null) return { kind: 'absent' };
    const problem = (problem: string): PathState => ({ kind: 'problem', problem });
    const link = `passes through the symlink ${JSON.stringify(prefix)}`;
    let target = stat;
    if (stat.isSymbolicLink()) {
      const real = orElse(() => realpathSync(at), null);
      // A dangling link: where it points decides, as a write through it would create that file.
      if (real === null) return problem(`${link} -> ${JSON.stringify(readlinkSync(at))}, which leads nowhere`);
      const rel = inside(rootReal, real);
      if (rel === null) return problem(`${link}, which leads out of the repository (to ${JSON.stringify(real)})`);
      if (rel === '') return problem(`${link}, which leads to the repository root`);
      if (rel.split(sep).some((s) => s.toLowerCase() === '.git'))
        return problem(`${link}, which leads to the repository's .git`);
      target = lstatSync(real);
    }
    const isLast = i === parts.length - 1;
    if (!isLast && !target.isDirectory())
      return problem(`passes through ${JSON.stringify(prefix)}, which is a file, not a folder`);
    if (isLast && target.isDirectory()) return problem('is a folder, not a file');
    if (isLast && !target.isFile()) return problem('is not a regular file');
  }
  return { kind: 'file' };
}

export function hashFile(root: string, path: string): string | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(root, path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return createHash('sha256').update(bytes).digest('hex');
}
