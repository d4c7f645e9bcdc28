// `git diff BASE`, bounded, in the refactor verifier's prompt: a verifier without a shell cannot run it.
import { gitStdout } from './git.js';

export const BASE_DIFF_LIMIT = 64 * 1024;

/** The diff of the work tree against `base` (what `git diff BASE` prints), cut at a line end past `limit` bytes. */
export function readBaseDiff(repo: string, base: string, limit = BASE_DIFF_LIMIT): BoundedDiff {
  return cutAt(gitStdout(repo, ['diff', '--no-color', '--no-ext-diff', '--no-renames', base]), limit);
}

/** Without the commit message (the developer's prose): the red verifier's view of which tests are new. */
export function readCommitDiff(repo: string, commit: string, paths: readonly string[], limit = BASE_DIFF_LIMIT) {
  if (paths.length === 0) return { text: '', cut: null };
  const show = ['show', '--format=', '--no-color', '--no-ext-diff', '--no-renames', commit, '--', ...paths];
  return cutAt(gitStdout(repo, show), limit);
}

type BoundedDiff = { text: string; cut: { shown: number; total: number } | null };

function cutAt(text: string, limit: number): BoundedDiff {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return { text, cut: null };
  const lineEnd = bytes.lastIndexOf(0x0a, limit - 1) + 1;
  const shown = lineEnd > 0 ? lineEnd : limit;
  return { text: bytes.subarray(0, shown).toString('utf8'), cut: { shown, total: bytes.length } };
}
