// A ball's candidate hash read from a commit (no checkout): a passed ball's bytes are checked on every run.
import type { Ball } from '../definition/slice-schema.js';
import { scopePaths } from './checkout.js';
import { git } from './git.js';

/** The candidate hash of `ball` at `commit`, as @leap/verify's candidateHash computes it over the scope files present. */
export async function candidateAt(repo: string, commit: string, ball: Ball): Promise<string> {
  const { candidateHash } = await import('@leap/verify');
  const paths = scopePaths(ball);
  const listing = await git(repo, ['ls-tree', '-r', '-z', commit, '--', ...paths]);
  const files = [];
  for (const entry of listing.split('\0').filter((e) => e !== '')) {
    const [meta, path] = entry.split('\t') as [string, string];
    const [, type, sha] = meta.split(' ');
    if (type !== 'blob' || !paths.includes(path)) continue;
    const bytes = await blob(repo, sha as string);
    files.push({ path, bytes, kind: 'file' as const });
  }
  return candidateHash(files);
}

async function blob(repo: string, sha: string): Promise<Buffer> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    execFile('git', ['cat-file', 'blob', sha], { cwd: repo, encoding: 'buffer', maxBuffer: 1 << 30 }, (error, stdout) => (error === null ? resolve(stdout) : reject(error)));
  });
}
