// The changes that are file writes, not commits (`tick-criterion`, `init`): atomic, under the ledger lock.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError, checkIssue, resolveStateDir, statePaths, writeFileAtomic } from '@leap/core';
import { parsePlan, readCriteria, renderLedger, showTitle, tickCriterion } from '@leap/core/ledger';
import { changeTarget, decodeUtf8, readFileBytes, type LedgerLocation } from './input.js';
import { locked, logEvent } from './transaction.js';

/** Which criterion: its number K, or the exact first line of its text (the old scripts' matcher). */
export type CriterionChoice = { criterion: number } | { match: string };

/** Tick a criterion of an issue body (what tracker plugins call): the new body, the criterion's number and text. */
export function tickCriterionText(body: string, choice: CriterionChoice, source = '<stdin>') {
  const criteria = readCriteria(body, source);
  let k = 'criterion' in choice ? choice.criterion : 0;
  if ('match' in choice) {
    const found = criteria.filter((c) => c.text === choice.match);
    const quoted = showTitle(choice.match);
    const exactly = `${criteria.length} criteria; the text must be the criterion's first line exactly`;
    if (found.length === 0) throw new UsageError(`${source}: no acceptance criterion reads ${quoted} (${exactly})`);
    const lines = `lines ${found.map((c) => c.line).join(', ')}`;
    const many = `${source}: ${found.length} acceptance criteria read ${quoted} (${lines}); name it by number`;
    if (found.length > 1) throw new UsageError(many);
    k = (found[0] as { index: number }).index;
  }
  return { body: tickCriterion(body, k, source), criterion: k, text: criteria[k - 1]?.text ?? '' };
}

/** Options of tickIssueCriterion: `--body FILE`, or `--issue N` for the local tracker's `.tdd/issues/N.md`. */
type TickCriterionOptions = Omit<LedgerLocation, 'ledger'> & { body?: string | null; choice: CriterionChoice };

export async function tickIssueCriterion(options: TickCriterionOptions) {
  const [cwd, env] = [options.cwd ?? process.cwd(), options.env ?? process.env];
  const [hasBody, hasIssue] = [options.body != null, options.issue != null];
  if (hasBody && hasIssue) throw new UsageError('tick-criterion: expected --body FILE or --issue N, not both');
  const neither = 'tick-criterion: expected --body FILE, or --issue N for the local tracker file .tdd/issues/N.md';
  if (!hasBody && !hasIssue) throw new UsageError(neither);
  const stateDir = resolveStateDir(env, cwd);
  const issue = options.issue == null ? null : checkIssue(options.issue, '--issue');
  const file = issue === null ? resolve(cwd, options.body as string) : statePaths(stateDir).issue(issue);
  return locked(stateDir, env, () => {
    const bytes = readFileBytes(file, issue === null ? 'an issue body' : `the local tracker's issue ${issue}`);
    const { body, criterion, text } = tickCriterionText(decodeUtf8(bytes, file), options.choice, file);
    writeFileAtomic(file, body, statSync(file).mode & 0o7777);
    logEvent(stateDir, env, { action: 'tick-criterion', title: text, file, criterion, issue, step: null });
    return { file, criterion, text };
  });
}

/** `planFile` names the plan in messages: its path, or `<stdin>`; `force` replaces an existing ledger. */
type InitOptions = LedgerLocation & { plan: Uint8Array; planFile: string; force?: boolean };

/** Write a new ledger from a plan; returns its path and step count. Nothing is written on a bad plan. */
export async function initLedger(options: InitOptions): Promise<{ ledger: string; steps: number }> {
  const t = changeTarget(options, 'init');
  const plan = parsePlan(decodeUtf8(options.plan, options.planFile), options.planFile);
  return locked(t.stateDir, t.env, () => {
    const exists = `${t.path}: a ledger exists already (its progress would be lost); pass --force to replace it`;
    if (options.force !== true && existsSync(t.path)) throw new UsageError(exists);
    mkdirSync(dirname(t.path), { recursive: true });
    writeFileAtomic(t.path, renderLedger(plan));
    logEvent(t.stateDir, t.env, { action: 'init', title: plan.title, file: t.path, issue: t.issue, step: null });
    return { ledger: t.path, steps: plan.steps.length };
  });
}
