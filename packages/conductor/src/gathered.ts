// What a run gathers as it goes, as values: each stage that gathers something (a launch, a verification, a
// phase, the plan, the branch's start) returns it, and the step loop in `conduct` (run-tdd.ts) merges them in
// the order they ran. A stage that ends the run mid-way hands what it had gathered on the ending it throws
// (`Bail`, `Stopped`: bail-causes.ts), so the result keeps it.
import type { TddVerdict } from './types.js';

/** What one stage (or the run so far) gathered. */
export interface Gathered {
  /** The verdicts reached (the verifiers', the conductor's own REJECTs), in order: the result's. */
  readonly verdicts: readonly TddVerdict[];
  /** The leaves launched: the result's. */
  readonly leaves: number;
  /** Trees whose suite passed (the baseline's, each verified refactor's): a later red's check without its tests is not run on one again. */
  readonly passedTrees: readonly string[];
  /** Whether it ran `git commit` (each without its maintenance, which the run's end starts once). */
  readonly committed: boolean;
}

/** Nothing gathered. */
export const NOTHING: Gathered = Object.freeze({ verdicts: Object.freeze([]), leaves: 0, passedTrees: Object.freeze([]), committed: false });

/** What `first` gathered and then `then`, in that order. */
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

/** Some of what a stage gathers, the rest nothing. */
export function gather(part: Partial<Gathered>): Gathered {
  return { ...NOTHING, ...part };
}
