// A ball's candidate hash read from a commit (no checkout): a passed ball's bytes are checked on every run.
import { runGit } from '@leap/core';
import type { Ball } from '../definition/slice-schema.js';
import { scopePaths } from './checkout.js';
import { git } from './git.js';

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
