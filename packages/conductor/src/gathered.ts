// What a run gathers, as values: each stage returns its own, merged in order; an ending thrown carries it too.
import type { TddVerdict } from './types.js';

export interface Gathered {
  /** The verdicts reached (the verifiers', the conductor's own REJECTs), in order: the result's. */
  readonly verdicts: readonly TddVerdict[];
  readonly leaves: number;
  /** Trees whose suite passed (the baseline's, each verified refactor's): a later red's check skips them. */
  readonly passedTrees: readonly string[];
  /** Whether it ran `git commit` (each without its maintenance, which the run's end starts once). */
  readonly committed: boolean;
}

export const NOTHING: Gathered = Object.freeze({
  verdicts: Object.freeze([]),
  leaves: 0,
  passedTrees: Object.freeze([]),
  committed: false,
});

export function merge(first: Gathered, then: Gathered): Gathered {
  if (then === NOTHING) return first;
  if (first === NOTHING) return then;
  return {
    verdicts: [...first.verdicts, ...then.verdicts],
    leaves: first.leaves + then.leaves,
    passedTrees: [...first.passedTrees, ...then.passedTrees],
    committed: first.committed || then.committed,
  };
}

export function gather(part: Partial<Gathered>): Gathered {
  return { ...NOTHING, ...part };
}
