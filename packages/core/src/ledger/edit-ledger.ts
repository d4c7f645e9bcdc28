// The ledger's state changes (`leap-ledger tick`, `clear-refactor-pending`).
// Each takes the ledger's text and returns it with ONE line rewritten: the
// step's line, its ending and every other byte untouched. The line changes in
// place: ticking writes `x` into the checkbox and appends
// ` <!-- refactor-pending -->` after the title and any criterion marker (before
// trailing blanks); clearing deletes that marker and the blanks before it.
// A malformed ledger is a FileFormatError; an unknown title or a step in the
// wrong state is a UsageError naming the file and the step's line.

import { UsageError } from '../errors.js';
import { createLedger, stepAt } from './_lazy-ledger.js';
import { assertNoProblems, rereadStep, scanLedger } from './_scan-ledger.js';
import { showTitle } from './_show.js';
import type { StepRead } from './_step-line.js';
import { findStepIndex } from './query-ledger.js';
import type { StepState } from './types.js';

const MARKER = ' <!-- refactor-pending -->';

/** Mark a todo step done and refactor-pending (`- [ ] T` -> `- [x] T <!-- refactor-pending -->`). */
export function tickStep(text: string, title: string, file = '<stdin>'): string {
  const span = locate(text, title, file, 'todo', 'tick');
  return `${text.slice(0, span.stateAt)}x${text.slice(span.stateAt + 1, span.markersEnd)}${MARKER}${text.slice(span.markersEnd)}`;
}

/** Put the refactor-pending marker back on a done step. */
export function setRefactorPending(text: string, title: string, file = '<stdin>'): string {
  const span = locate(text, title, file, 'done', 'mark refactor-pending');
  return `${text.slice(0, span.markersEnd)}${MARKER}${text.slice(span.markersEnd)}`;
}

/** Remove the refactor-pending marker: refactor-pending -> done. */
export function clearRefactorPending(text: string, title: string, file = '<stdin>'): string {
  const span = locate(text, title, file, 'refactor-pending', 'clear refactor-pending on');
  return text.slice(0, span.cut) + text.slice(span.cutEnd);
}

// The line of the step titled `title`, which must be in state `expected`; `action` words the error.
function locate(text: string, title: string, file: string, expected: StepState, action: string): StepRead {
  const scan = scanLedger(text);
  assertNoProblems(scan, file);
  const ledger = createLedger(file, text, scan);
  const index = findStepIndex(ledger, title);
  const step = stepAt(ledger, index);
  if (step.state !== expected) {
    throw new UsageError(`${file}:${step.line}: cannot ${action} step ${showTitle(title)}: expected a ${expected} step, found a ${step.state} one`);
  }
  return rereadStep(scan, index);
}
