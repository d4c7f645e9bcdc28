// @leap/ledger: the ledger commands (leap-ledger) and the atomic tick.
export { applyAttempt, listAttempts, preserveAttempt, type Attempt, type PreservedAttempt } from './attempts.js';
export { queryStep, type StepQuery } from './cli.js';
export { BusyError, EXIT, RefusedError } from './errors.js';
export { initLedger, tickCriterionText, tickIssueCriterion, type CriterionChoice } from './files.js';
export { readLedger, type LedgerLocation, type LedgerText } from './input.js';
export { recoverLedger, type RecoveryReport } from './transaction.js';
export { clearRefactor, tick, type LedgerCommitResult, type TickOptions } from './tick.js';
