// The read-only questions (`list`, `current`, ...) and how their records print.
import { currentOrLastDone, currentStep, nextPendingRefactor, nextUnchecked, type Ledger, type LedgerStep } from '@leap/core/ledger';

/** The queries that answer with one step, or nothing. */
export const STEP_QUERIES = ['current', 'current-or-last-done', 'next-unchecked', 'next-pending-refactor'] as const;
export type StepQuery = (typeof STEP_QUERIES)[number];

/** Answer one step query; null means nothing is left (exit 1). */
export function queryStep(ledger: Ledger, query: StepQuery): LedgerStep | null {
  switch (query) {
    case 'current':
      return currentStep(ledger);
    case 'current-or-last-done':
      return currentOrLastDone(ledger);
    case 'next-unchecked':
      return nextUnchecked(ledger);
    case 'next-pending-refactor':
      return nextPendingRefactor(ledger);
  }
}

/** One step as a JSON line, keys in the documented order. */
export function stepJson(step: LedgerStep): string {
  return `${JSON.stringify({ state: step.state, title: step.title, line: step.line, criterion: step.criterion })}\n`;
}

/** A step query's answer: the title byte for byte, or its JSON record. */
export function formatStep(step: LedgerStep, json: boolean): string {
  return json ? stepJson(step) : `${step.title}\n`;
}

/** `list`: one `STATE<TAB>TITLE` line a step, or JSON lines. */
export function formatList(steps: readonly LedgerStep[], json: boolean): string {
  let out = '';
  for (const step of steps) out += json ? stepJson(step) : `${step.state}\t${step.title}\n`;
  return out;
}
