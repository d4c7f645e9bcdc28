// @leap/core/ledger: the ledger model (CONTRACT section 6) and the issue body's acceptance criteria.
// Modules starting with `_` are internal and never re-exported.

export { readCriteria, tickCriterion } from './acceptance-criteria.js';
export { parsePlan, renderLedger } from './create-ledger.js';
export { clearRefactorPending, setRefactorPending, tickStep } from './edit-ledger.js';
export { WARM_UP_BYTES, parseLedger, warmUpLedgerScan } from './parse-ledger.js';
export { currentOrLastDone, currentStep, findStep, nextPendingRefactor, nextUnchecked } from './query-ledger.js';
export { serializeLedger } from './serialize-ledger.js';
export type { Criterion, Ledger, LedgerPlan, LedgerProblem, LedgerStep, ParsedPlan, PlanStep, StepState } from './types.js';
export { validateLedger } from './validate-ledger.js';
