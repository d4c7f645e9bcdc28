// The read-only questions the conductor asks a ledger (`leap-ledger current`,
// `next-unchecked`, ...). On a ledger fresh from parseLedger they search the
// scanner's typed arrays natively and build only the step they return.

import { UsageError } from '../errors.js';
import { firstIndexOf, stepAt, stepCount, titleIndexOf } from './_lazy-ledger.js';
import { showTitle } from './_show.js';
import type { Ledger, LedgerStep, StepState } from './types.js';

/** The step in flight: the first refactor-pending step, else the first todo step, else null. */
export function currentStep(ledger: Ledger): LedgerStep | null {
  return first(ledger, 'refactor-pending') ?? first(ledger, 'todo');
}

/** As currentStep, else the last done step, else null (an empty ledger). */
export function currentOrLastDone(ledger: Ledger): LedgerStep | null {
  // With no step in flight every step is done, so the last step is the last done one.
  const count = stepCount(ledger);
  return currentStep(ledger) ?? (count === 0 ? null : stepAt(ledger, count - 1));
}

/** The first todo step, else null. */
export function nextUnchecked(ledger: Ledger): LedgerStep | null {
  return first(ledger, 'todo');
}

/** The first refactor-pending step, else null. */
export function nextPendingRefactor(ledger: Ledger): LedgerStep | null {
  return first(ledger, 'refactor-pending');
}

/** The step whose title is exactly `title`; a UsageError naming the file when there is none. */
export function findStep(ledger: Ledger, title: string): LedgerStep {
  return stepAt(ledger, findStepIndex(ledger, title));
}

/** Index of the step titled exactly `title`; throws the UsageError findStep documents. */
export function findStepIndex(ledger: Ledger, title: string): number {
  const index = titleIndexOf(ledger, title);
  if (index !== -1) return index;
  const steps = ledger.steps;
  const loose = looseKey(title);
  const near = steps.find((step) => looseKey(step.title) === loose);
  const count = `${steps.length} step${steps.length === 1 ? '' : 's'}`;
  const hint = near === undefined ? `${count}, none matches` : `did you mean ${showTitle(near.title)} (line ${near.line})?`;
  throw new UsageError(`${ledger.file}: no step titled ${showTitle(title)} (titles match exactly; ${hint})`);
}

function first(ledger: Ledger, state: StepState): LedgerStep | null {
  const index = firstIndexOf(ledger, state);
  return index === -1 ? null : stepAt(ledger, index);
}

// Case, surrounding whitespace and runs of whitespace ignored: only to suggest a title, never to match one.
function looseKey(title: string): string {
  return title.trim().replace(/\s+/g, ' ').toLowerCase();
}
