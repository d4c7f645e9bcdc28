// Internal: the Ledger that parseLedger returns. Its `steps` array is built on
// first read, from the scanner's typed arrays; until then the queries answer
// from those arrays directly, so `leap-ledger current` on 10,000 steps builds
// one step object, not 10,000. Reading or assigning `steps` turns it into a
// plain data property, and from then on the queries read the array (whatever a
// caller did to it), so the two paths can never disagree.

import { DONE, REFACTOR_PENDING, TODO } from './_scan-ledger.js';
import { findTitle, titleAt } from './_title-index.js';
import type { LedgerScan } from './_scan-ledger.js';
import type { Ledger, LedgerStep, StepState } from './types.js';

interface Index {
  scan: LedgerScan;
  /** Step objects handed out so far, so a step read twice is the same object. */
  objects: Array<LedgerStep | undefined>;
}

const NAMES: readonly StepState[] = ['todo', 'todo', 'refactor-pending', 'done'];
const CODES: Readonly<Record<StepState, number>> = { todo: TODO, 'refactor-pending': REFACTOR_PENDING, done: DONE };
const indexes = new WeakMap<Ledger, Index>();

/** A Ledger over a scan without problems, its `steps` built when first read. */
export function createLedger(file: string, text: string, scan: LedgerScan): Ledger {
  const ledger = { file, text, stepsLine: scan.stepsLine } as Ledger; // `steps` is defined just below
  const index: Index = { scan, objects: [] };
  Object.defineProperty(ledger, 'steps', {
    configurable: true,
    enumerable: true,
    get(): LedgerStep[] {
      const steps = Array.from({ length: scan.count }, (_, i) => objectAt(index, i));
      settle(ledger, steps);
      return steps;
    },
    set(steps: LedgerStep[]) {
      settle(ledger, steps);
    },
  });
  indexes.set(ledger, index);
  return ledger;
}

/** Index of the first step in `state`, or -1. */
export function firstIndexOf(ledger: Ledger, state: StepState): number {
  const index = indexes.get(ledger);
  if (index !== undefined) return index.scan.states.indexOf(CODES[state]);
  return ledger.steps.findIndex((step) => step.state === state);
}

/** Index of the step titled exactly `title`, or -1. */
export function titleIndexOf(ledger: Ledger, title: string): number {
  const index = indexes.get(ledger);
  if (index !== undefined) return findTitle(index.scan, title);
  return ledger.steps.findIndex((step) => step.title === title);
}

/** How many steps the ledger has. */
export function stepCount(ledger: Ledger): number {
  return indexes.get(ledger)?.scan.count ?? ledger.steps.length;
}

/** Step i of the ledger (0 <= i < stepCount). */
export function stepAt(ledger: Ledger, i: number): LedgerStep {
  const index = indexes.get(ledger);
  return index !== undefined ? objectAt(index, i) : (ledger.steps[i] as LedgerStep);
}

function objectAt(index: Index, i: number): LedgerStep {
  const known = index.objects[i];
  if (known !== undefined) return known;
  const { scan } = index;
  const criterion = scan.criteria === null ? 0 : (scan.criteria[i] as number);
  const step: LedgerStep = {
    title: titleAt(scan, i),
    state: NAMES[scan.states[i] as number] as StepState,
    line: scan.lines[i] as number,
    criterion: criterion === 0 ? null : criterion,
  };
  index.objects[i] = step;
  return step;
}

// From now on `steps` is a plain property and the queries read it.
function settle(ledger: Ledger, steps: LedgerStep[]): void {
  indexes.delete(ledger);
  Object.defineProperty(ledger, 'steps', { value: steps, writable: true, enumerable: true, configurable: true });
}
