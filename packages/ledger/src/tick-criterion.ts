// `leap-ledger tick-criterion`: tick acceptance criterion K of an issue body (CONTRACT section 4).
// The text function is what tracker plugins call on a real issue's body; the file function is the
// local tracker's (.tdd/issues/N.md) and `--body FILE`.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError, checkIssue, resolveStateDir, statePaths, writeFileAtomic } from '@leap/core';
import { readCriteria, tickCriterion } from '@leap/core/ledger';
import { logLedgerEventOrWarn } from './events.js';
import { decodeUtf8, readFileBytes } from './read-input.js';
import { takeLedgerLock } from './transaction/locks.js';
import { quote } from './quote-title.js';

/** Which criterion: its number K, or the exact first line of its text (the old scripts' matcher). */
export type CriterionChoice = { criterion: number } | { match: string };

/** Tick a criterion of a body's `## Acceptance criteria`; returns the new body, the criterion's number and text. */
export function tickCriterionText(body: string, choice: CriterionChoice, source = '<stdin>'): { body: string; criterion: number; text: string } {
  const criterion = 'criterion' in choice ? choice.criterion : criterionByText(body, choice.match, source);
  const ticked = tickCriterion(body, criterion, source);
  return { body: ticked, criterion, text: readCriteria(body, source)[criterion - 1]?.text ?? '' };
}

function criterionByText(body: string, text: string, source: string): number {
  const criteria = readCriteria(body, source);
  const found = criteria.filter((c) => c.text === text);
  if (found.length === 1) return (found[0] as { index: number }).index;
  if (found.length === 0) throw new UsageError(`${source}: no acceptance criterion reads ${quote(text)} (${criteria.length} criteria; the text must be the criterion's first line exactly)`);
  throw new UsageError(`${source}: ${found.length} acceptance criteria read ${quote(text)} (lines ${found.map((c) => c.line).join(', ')}); name it by number`);
}

/** Options of tickIssueCriterion: the body file, or the local tracker's issue N. */
export interface TickCriterionOptions {
  body?: string | null;
  issue?: number | string | null;
  choice: CriterionChoice;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** Tick a criterion in a body file, written atomically; appends a tick-criterion event. */
export async function tickIssueCriterion(options: TickCriterionOptions): Promise<{ file: string; criterion: number; text: string }> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const stateDir = resolveStateDir(env, cwd);
  const hasBody = options.body !== undefined && options.body !== null;
  const hasIssue = options.issue !== undefined && options.issue !== null;
  if (hasBody && hasIssue) throw new UsageError('tick-criterion: expected --body FILE or --issue N, not both');
  if (!hasBody && !hasIssue) throw new UsageError('tick-criterion: expected --body FILE, or --issue N for the local tracker file .tdd/issues/N.md');
  const issue = hasIssue ? checkIssue(options.issue as number | string, '--issue') : null;
  const file = hasBody ? resolve(cwd, options.body as string) : statePaths(stateDir).issue(issue as number);
  const lock = takeLedgerLock(stateDir);
  try {
    const bytes = readFileBytes(file, issue === null ? 'an issue body' : `the local tracker's issue ${issue}`);
    const { body, criterion, text } = tickCriterionText(decodeUtf8(bytes, file), options.choice, file);
    writeFileAtomic(file, body, statSync(file).mode & 0o7777);
    logLedgerEventOrWarn('leap-ledger', stateDir, env, { action: 'tick-criterion', title: text, file, criterion }, { issue, step: null });
    return { file, criterion, text };
  } finally {
    lock.release();
  }
}
