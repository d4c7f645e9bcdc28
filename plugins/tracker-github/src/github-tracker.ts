// The GitHub tracker: issues, their threads, criteria and draft pull requests through the gh CLI.
import { type TrackerPlugin, UsageError, checkIssue, showValue } from '@leap/core';
import { tickCriterion } from '@leap/core/ledger';
import { parseGhIssue, type GithubIssue } from './gh-issue.js';
import { GhError, runGh, trackerGit } from './run-gh.js';

export interface GithubTrackerOptions {
  /** The local clone (gh finds the GitHub repository from its remotes; `git push` runs here). Default: cwd. */
  cwd?: string;
  /** `OWNER/REPO`, passed to gh as `--repo` when the clone's remotes should not decide. */
  repo?: string;
  /** The remote the branch is pushed to (default `origin`). */
  remote?: string;
  /** Draft pull requests' base branch when the call names none (default: gh's, the repository's default branch). */
  base?: string;
  gh?: string;
  env?: NodeJS.ProcessEnv;
}

export const ISSUE_FIELDS = 'number,title,body,comments';

/** The GitHub tracker (name `github`); each call is one or two gh processes. */
export interface GithubTracker extends TrackerPlugin {
  readIssue(issue: number): Promise<GithubIssue>;
  /** Always null: the issue body lives on GitHub, not in the repository. */
  issueFile(issue: number): null;
}

export function createGithubTracker(options: GithubTrackerOptions = {}): GithubTracker {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const remote = options.remote ?? 'origin';
  const repoArgs = options.repo === undefined ? [] : [`--repo=${options.repo}`];
  const run = (args: string[], input?: string) =>
    runGh(options.gh ?? 'gh', [...args, ...repoArgs], { cwd, env, input });

  const view = (issue: number, fields: string) =>
    run(['issue', 'view', String(issue), `--json=${fields}`]).catch((error) => {
      if (!(error instanceof GhError) || error.kind !== 'not-found') throw error;
      const where = options.repo === undefined ? '' : ` in ${options.repo}`;
      const details = { stderr: error.stderr, code: error.code, cause: error };
      throw new GhError('not-found', `no issue ${issue} on GitHub${where}: ${error.stderr.trim()}`, details);
    });

  return {
    name: 'github',
    readIssue: async (issue) => parseGhIssue(await view(checkIssue(issue), ISSUE_FIELDS), checkIssue(issue)),
    comment: async (issue, text) => {
      const n = checkIssue(issue);
      if (text.trim() === '')
        throw new UsageError(`Expected a comment with some text for issue ${n}, got ${showValue(text)}`);
      await run(['issue', 'comment', String(n), '--body-file=-'], text);
    },
    tickCriterion: async (issue, criterion) => {
      const n = checkIssue(issue);
      const { body } = parseGhIssue(await view(n, 'number,title,body'), n);
      // Core's tick changes the one box and keeps every other byte (CRLF bodies written on github.com included).
      const ticked = tickCriterion(body, criterion, `GitHub issue ${n}`);
      await run(['issue', 'edit', String(n), '--body-file=-'], ticked);
    },
    openDraftPullRequest: async ({ title, body, branch, base, issue }) => {
      if (branch === '' || title.trim() === '') {
        const got = `${showValue(title)} and ${showValue(branch)}`;
        throw new UsageError(`Expected a non-empty title and branch for a draft pull request, got ${got}`);
      }
      if (/[\r\n]/.test(title))
        throw new UsageError(`Expected a pull request title of one line, got ${showValue(title)}`);
      const text = issue === undefined ? body : withClosingReference(body, checkIssue(issue));
      await trackerGit(['push', '--quiet', '-u', remote, `refs/heads/${branch}:refs/heads/${branch}`], { cwd, env });
      const onto = base ?? options.base;
      const args = ['pr', 'create', '--draft', ...(onto === undefined ? [] : [`--base=${onto}`])];
      args.push(`--head=${branch}`, `--title=${title}`, '--body-file=-');
      const url = await run(args, text).then(lastUrl, async (error) => {
        // Run again (resumed): this branch's pull request exists, gh names it, and it gets this run's title and body.
        const existing = /already exists:\s*(https?:\/\/\S+)/.exec(error instanceof GhError ? error.stderr : '')?.[1];
        if (existing === undefined) throw error;
        await run(['pr', 'edit', existing, `--title=${title}`, '--body-file=-'], text);
        return existing;
      });
      return { url };
    },
    issueFile: () => null,
  };
}

// GitHub links a pull request to the issue it resolves through a closing keyword in its body.
function withClosingReference(body: string, issue: number): string {
  if (new RegExp(`\\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?) #${issue}\\b`, 'i').test(body)) return body;
  const text = body.replace(/\n*$/, '');
  return `${text}${text === '' ? '' : '\n\n'}Closes #${issue}\n`;
}

// gh pr create prints the new pull request's URL as its last line.
function lastUrl(stdout: string): string {
  const url = stdout.split('\n').findLast((line) => /^https?:\/\//.test(line.trim()));
  if (url === undefined) throw new GhError('failed', `gh pr create printed no pull request URL: ${showValue(stdout)}`);
  return url.trim();
}
