// @leap/ledger: the ledger commands (leap-ledger) and the atomic tick.
export { applyAttempt, listAttempts, preserveAttempt, type Attempt, type PreservedAttempt } from './attempts.js';
export { queryStep, type StepQuery } from './cli.js';
export { initLedger, tickCriterionText, tickIssueCriterion, type CriterionChoice } from './files.js';
export { BusyError, EXIT, RefusedError, readLedger, type LedgerLocation, type LedgerText } from './input.js';
export { clearRefactor, recoverLedger, tick, type LedgerCommitResult, type RecoveryReport } from './transaction.js';
export type { TickOptions } from './transaction.js';
