// Where a scope path leads on disk: out of the repository, into .git or through a file is a path no ball can own.
import { lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
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
    if (code === 'ENOENT') return null;
    if (code === 'ENOTDIR') return null;
    throw error;
  }
}

/** Resolve the scope path `path` in the checkout at `root`, refusing what the file-map check refuses. */
export function resolveInRepo(root: string, path: string): PathState {
  const why = scopePathProblem(path);
  if (why !== null) return { kind: 'problem', problem: why };
  const rootReal = realpathSync(root);
  const parts = normalizeScopePath(path).split('/');
  for (let i = 0; i < parts.length; i++) {
    const prefix = parts.slice(0, i + 1).join('/');
    const stat = lstatOrNull(join(rootReal, prefix));
    if (stat === null) return { kind: 'absent' };
    if (stat.isSymbolicLink()) {
      let real: string;
      try {
        real = realpathSync(join(rootReal, prefix));
      } catch {
        // A dangling link: where it points decides, as a write through it would create that file.
        const target = readlinkSync(join(rootReal, prefix));
        return {
          kind: 'problem',
          problem: `passes through the symlink ${JSON.stringify(prefix)} -> ${JSON.stringify(target)}, which leads nowhere`,
        };
      }
      const rel = inside(rootReal, real);
      if (rel === null)
        return {
          kind: 'problem',
          problem: `passes through the symlink ${JSON.stringify(prefix)}, which leads out of the repository (to ${JSON.stringify(real)})`,
        };
      if (rel.split(sep).some((s) => s.toLowerCase() === '.git') || rel === '')
        return {
          kind: 'problem',
          problem: `passes through the symlink ${JSON.stringify(prefix)}, which leads to ${rel === '' ? 'the repository root' : "the repository's .git"}`,
        };
    }
    const isLast = i === parts.length - 1;
    const target = stat.isSymbolicLink() ? lstatSync(realpathSync(join(rootReal, prefix))) : stat;
    if (!isLast && !target.isDirectory())
      return { kind: 'problem', problem: `passes through ${JSON.stringify(prefix)}, which is a file, not a folder` };
    if (isLast && target.isDirectory()) return { kind: 'problem', problem: 'is a folder, not a file' };
    if (isLast && !target.isFile()) return { kind: 'problem', problem: 'is not a regular file' };
  }
  return { kind: 'file' };
}
