// @leap/core/ledger: the ledger model (CONTRACT section 6), plans, and an issue body's acceptance criteria.
export { type Criterion, readCriteria, tickCriterion } from './criteria.js';
export { clearRefactorPending, currentOrLastDone, currentStep, findStep, nextPendingRefactor } from './ledger.js';
export { nextUnchecked, parseLedger, serializeLedger, setRefactorPending, tickStep, validateLedger } from './ledger.js';
export type { Ledger, LedgerProblem, LedgerPlan, ParsedPlan, PlanStep } from './ledger.js';
export { parsePlan, renderLedger } from './ledger.js';
export { type LedgerStep, type StepState, showTitle } from './step-line.js';
