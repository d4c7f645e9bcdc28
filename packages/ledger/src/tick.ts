// `leap-ledger tick` and `clear-refactor-pending`: a ledger line changed in the same commit as the staged work.
import { clearRefactorPending, tickStep } from '@leap/core/ledger';
import { changeTarget } from './change-target.js';
import type { LedgerLocation } from './ledger-source.js';
import { commitLedgerChange, type LedgerCommitRequest, type LedgerCommitResult } from './transaction/commit-ledger-change.js';

/** Options of tick and clearRefactor. */
export interface TickOptions extends LedgerLocation {
  /** The step's title, matched exactly. */
  step: string;
  /** The commit message; `green: TITLE` (tick) or `refactor: TITLE` (clear) by default. */
  message?: string;
  /** Skip the pre-commit and commit-msg hooks, as git commit --no-verify. */
  noVerify?: boolean;
  /** Commit even when nothing but the ledger line is staged. */
  allowEmpty?: boolean;
  /**
   * HEAD's commit as the caller has just read it. With allowEmpty, and the repository's folders known to this
   * process (asked once, again when .git/config changes), the tick asks git nothing before its commit; a HEAD
   * that is not this one refuses the commit at update-ref, as a HEAD that moves meanwhile does.
   */
  head?: string;
}

/** Mark a todo step done and refactor-pending, in ONE commit with the step's staged green work. */
export async function tick(options: TickOptions): Promise<LedgerCommitResult> {
  return commitStepLine(options, 'tick', tickStep, 'green');
}

/** Remove a step's refactor-pending marker, in ONE commit with the refactor's staged work. */
export async function clearRefactor(options: TickOptions): Promise<LedgerCommitResult> {
  return commitStepLine(options, 'clear-refactor-pending', clearRefactorPending, 'refactor');
}

function commitStepLine(options: TickOptions, action: LedgerCommitRequest['action'], edit: LedgerCommitRequest['edit'], verb: string): Promise<LedgerCommitResult> {
  const target = changeTarget(options, action);
  return commitLedgerChange({
    action,
    ledger: target.path,
    issue: target.issue,
    title: options.step,
    edit,
    message: options.message ?? `${verb}: ${options.step}`,
    noVerify: options.noVerify,
    allowEmpty: options.allowEmpty,
    head: options.head,
    stateDir: target.stateDir,
    env: target.env,
  });
}
