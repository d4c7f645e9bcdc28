// Reading what `gh issue view N --json number,title,body,comments` prints.
import { FileFormatError, type TrackerIssue, showValue } from '@leap/core';
import { readCriteria } from '@leap/core/ledger';
import { GhError } from './run-gh.js';

export type GithubComment = { author: string; body: string; createdAt: string };

/** A GitHub issue: the tracker's fields, plus its thread when it was asked for. */
export type GithubIssue = TrackerIssue & { comments: GithubComment[] };

/** Parse gh's JSON for issue `n`; the criteria are the body's `## Acceptance criteria` list (none without one). */
export function parseGhIssue(stdout: string, n: number): GithubIssue {
  const shown = showValue(stdout.slice(0, 200));
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch (cause) {
    throw new GhError('failed', `gh issue view ${n} printed no JSON: ${shown}`, { cause });
  }
  const record = (data ?? {}) as Record<string, unknown>;
  const { number, title, body } = record;
  if (typeof number !== 'number' || typeof title !== 'string' || typeof body !== 'string')
    throw new GhError('failed', `gh issue view ${n} printed JSON without a number, title and body: ${shown}`);
  if (number !== n) throw new GhError('failed', `gh issue view ${n} answered with issue ${number}`);
  return { number, title, body, criteria: criteriaOf(body, n), comments: commentsOf(record.comments) };
}

function criteriaOf(body: string, n: number): TrackerIssue['criteria'] {
  try {
    return readCriteria(body, `GitHub issue ${n}`).map((c) => ({ index: c.index, text: c.text, checked: c.checked }));
  } catch (error) {
    if (error instanceof FileFormatError) return [];
    throw error;
  }
}

function commentsOf(value: unknown): GithubComment[] {
  if (!Array.isArray(value)) return [];
  return value.map((c: { author?: { login?: unknown } | null; body?: unknown; createdAt?: unknown }) => ({
    // A deleted account is `ghost` on github.com and null in the API.
    author: typeof c.author?.login === 'string' ? c.author.login : 'ghost',
    body: typeof c.body === 'string' ? c.body : '',
    createdAt: typeof c.createdAt === 'string' ? c.createdAt : '',
  }));
}
