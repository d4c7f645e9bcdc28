// The local tracker: issue N is `.tdd/issues/N.md`, its thread `.tdd/issues/N.thread.md`.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TrackerPlugin } from '@leap/core';
import {
  UsageError,
  checkIssue,
  ensureStateDir,
  resolveStateDir,
  showValue,
  statePaths,
  writeFileAtomic,
} from '@leap/core';
import { tickCriterion } from '@leap/core/ledger';
import { readLocalIssueFile } from './local-issue.js';

export interface LocalTrackerOptions {
  /** The state folder (default: VERI_STATE_DIR, else `.tdd/` at the repository root of `cwd`). */
  stateDir?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  now?: () => Date;
}

export function createLocalTracker(options: LocalTrackerOptions = {}): TrackerPlugin {
  const stateDir = options.stateDir ?? resolveStateDir(options.env ?? process.env, options.cwd ?? process.cwd());
  const paths = statePaths(stateDir);
  const now = options.now ?? (() => new Date());
  return {
    name: 'local',
    readIssue: async (issue) => readLocalIssueFile(paths.issue(checkIssue(issue)), issue),
    comment: async (issue, text) => {
      const file = paths.thread(checkIssue(issue));
      ensureStateDir(stateDir);
      mkdirSync(dirname(file), { recursive: true });
      const header = existsSync(file) ? '' : `# Thread of issue ${issue}\n`;
      // One append per comment, so concurrent writers never interleave inside a comment.
      appendFileSync(file, `${header}\n## ${now().toISOString()}\n\n${text.replace(/\n*$/, '')}\n`);
    },
    tickCriterion: async (issue, criterion) => {
      const file = paths.issue(checkIssue(issue));
      readLocalIssueFile(file, issue);
      writeFileAtomic(file, tickCriterion(readFileSync(file, 'utf8'), criterion, file));
    },
    openDraftPullRequest: async ({ title, body, branch, base, issue }) => {
      if (branch === '' || title.trim() === '') {
        const got = `${showValue(title)} and ${showValue(branch)}`;
        throw new UsageError(`Expected a non-empty title and branch for a draft pull request, got ${got}`);
      }
      // With an issue, the pull request sits beside it (`issues/N.pr.md`); opening it again replaces it.
      const file =
        issue === undefined
          ? join(stateDir, 'pull-requests', `${branch.replace(/[^A-Za-z0-9._-]/g, '_')}.md`)
          : join(paths.issuesDir, `${checkIssue(issue)}.pr.md`);
      ensureStateDir(stateDir);
      mkdirSync(dirname(file), { recursive: true });
      const head = [`# ${title}`, '', 'State: draft', `Base: ${base ?? '(the default branch)'}`, `Head: ${branch}`];
      if (issue !== undefined) head.push(`Issue: ${issue}`);
      writeFileAtomic(file, `${head.join('\n')}\n\n## Summary\n\n${body.replace(/\n*$/, '')}\n`);
      return { url: pathToFileURL(file).href };
    },
    issueFile: (issue) => paths.issue(checkIssue(issue)),
  };
}
