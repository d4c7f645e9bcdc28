// CONTRACT section 9's bail causes and classes, the run's two endings (`Bail`, `Stopped`) and what a run gathers.
import type { TddVerdict } from './index.js';

/** `process`: the run's inputs or budget need a person; `system`: a leaf or an agent CLI failed. */
export const BAIL_CLASSES = {
  'needs-user': 'process',
  'revision-budget': 'process',
  'baseline-red': 'process',
  'dirty-tree': 'process',
  'commit-refused': 'process',
  'cost-budget': 'process',
  'suite-limit': 'process',
  'killed-external': 'system',
  'killed-timeout': 'system',
  'killed-stuck': 'system',
  'agent-missing': 'system',
  'agent-failed': 'system',
} as const satisfies Record<string, 'process' | 'system'>;

export type BailCause = keyof typeof BAIL_CLASSES;

export const bailClass = (cause: BailCause): 'process' | 'system' => BAIL_CLASSES[cause];

/** Thrown inside a run to end it with a bail; the run catches it, keeps finished steps and narrates it. */
export class Bail extends Error {
  constructor(
    readonly bailCause: BailCause,
    readonly narration: string,
    /** What the stages it left gathered before the throw (the result keeps it); filled on its way out by `carrying`. */
    readonly gathered: Gathered = NOTHING,
    /** Every commit stays (an agent's honest way out): a red commit is kept too, to be verified again on a resume. */
    readonly keepCommits = false,
  ) {
    super(`bail: ${bailCause}: ${narration}`);
  }
}

export class Stopped extends Error {
  constructor(
    readonly mode: string,
    readonly where: string,
    readonly gathered: Gathered = NOTHING,
  ) {
    super(`stopped (${mode}) ${where}`);
  }
}

/** A `Bail` or `Stopped` made again carrying `before` first; any other error as it is (it ends no run). */
export function carrying(error: unknown, before: Gathered): unknown {
  if (before === NOTHING || !(error instanceof Bail || error instanceof Stopped)) return error;
  const all = merge(before, error.gathered);
  const again =
    error instanceof Bail
      ? new Bail(error.bailCause, error.narration, all, error.keepCommits)
      : new Stopped(error.mode, error.where, all);
  again.stack = error.stack;
  return again;
}

// What a run gathers, as values: each stage returns its own, merged in order; an ending thrown carries it too.
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
