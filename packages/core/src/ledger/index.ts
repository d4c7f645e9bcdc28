// @leap/core/ledger: the ledger model (CONTRACT section 6), plans, and an issue body's acceptance criteria.
export { readCriteria, tickCriterion } from './criteria.js';
export type { Criterion } from './criteria.js';
export { clearRefactorPending, currentOrLastDone, currentStep, findStep, nextPendingRefactor } from './ledger.js';
export { nextUnchecked, parseLedger, serializeLedger, setRefactorPending, tickStep, validateLedger } from './ledger.js';
export type { Ledger, LedgerProblem } from './ledger.js';
export { parsePlan, renderLedger } from './plan.js';
export type { LedgerPlan, ParsedPlan, PlanStep } from './plan.js';
export { showTitle } from './step-line.js';
export type { LedgerStep, StepState } from './step-line.js';
