// Author aliases from repo truth: the folder's git identity, and a commit's author and committer.
import { runGit, type GitOptions } from '@leap/core';

/** What git cannot say (no commit, not a repository) adds nothing; `options`: the caller's git isolation. */
export async function gitAliases(
  cwd: string,
  rev = 'HEAD',
  options: Pick<GitOptions, 'env' | 'isolate' | 'ceiling'> = {},
): Promise<string[]> {
  const read = async (args: string[]): Promise<string> => {
    const ran = await runGit(args, { ...options, cwd, allowFailure: true }).catch(() => null);
    return ran === null || ran.code !== 0 ? '' : ran.stdout;
  };
  const log = ['log', '-1', '--format=%an%x00%ae%x00%cn%x00%ce', rev, '--'];
  const [ident, authors] = await Promise.all([read(['var', 'GIT_AUTHOR_IDENT']), read(log)]);
  const [, name = '', email = ''] = /^(.*) <(.*)> \d+ [+-]\d{4}$/.exec(ident.trim()) ?? [];
  const values = [name, email, ...authors.split('\0')].map((v) => v.trim());
  return [...new Set(values.filter((v) => v !== ''))];
}
