// @leap/ledger: the ledger commands (leap-ledger) and the atomic tick.
export { EXIT, BusyError, RefusedError, LedgerInternalError } from './exit-codes.js';
export { locateLedger, readLedger, type LedgerFile, type LedgerLocation, type LedgerText } from './ledger-source.js';
export { STEP_QUERIES, formatList, formatStep, queryStep, stepJson, type StepQuery } from './queries.js';
export { validateText, formatProblems, type ValidationProblem } from './validate.js';
export { tick, clearRefactor, type TickOptions } from './tick.js';
export { commitLedgerChange, type LedgerCommitRequest, type LedgerCommitResult } from './transaction/commit-ledger-change.js';
export { recoverLedger, hasPendingTransaction, type RecoverOptions, type RecoveryReport } from './transaction/recover.js';
export { tickCriterionText, tickIssueCriterion, type CriterionChoice, type TickCriterionOptions } from './tick-criterion.js';
export { preserveAttempt, ATTEMPTS_REF_PREFIX, type PreserveOptions, type PreservedAttempt } from './preserve-attempt.js';
export { listAttempts, applyAttempt, formatAttempts, type Attempt, type AttemptsOptions } from './attempts.js';
export { initLedger, type InitOptions } from './init-ledger.js';
export { logLedgerEvent, type LedgerEventFields } from './events.js';
export { main as runLedgerCli } from './cli/main.js';
export { processIo, type CliIo } from './cli/io.js';
