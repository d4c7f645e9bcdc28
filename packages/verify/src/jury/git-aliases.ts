// Author aliases from repo truth: the effective git identity in the folder and the last commit's author and committer.
import { runGit } from '@leap/core';

/** Names and emails git knows in `cwd` (two git calls, run at once); no commit outside a repository. */
export async function gitAliases(cwd: string): Promise<string[]> {
  const read = async (args: string[]): Promise<string> => {
    const ran = await runGit(args, { cwd, allowFailure: true }).catch(() => null);
    return ran === null || ran.code !== 0 ? '' : ran.stdout;
  };
  const [ident, log] = await Promise.all([read(['var', 'GIT_AUTHOR_IDENT']), read(['log', '-1', '--format=%an%x00%ae%x00%cn%x00%ce'])]);
  const identity = /^(.*) <(.*)> \d+ [+-]\d{4}$/.exec(ident.trim());
  const values = [...(identity === null ? [] : [identity[1], identity[2]]), ...log.split('\0')].map((v) => (v ?? '').trim());
  return [...new Set(values.filter((v) => v !== ''))];
}
