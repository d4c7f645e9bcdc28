// The three phases a verifier judges.
import { checkOneOf } from '@leap/core';

export const PHASES = ['red', 'green', 'refactor'] as const;

/** One TDD phase. */
export type Phase = (typeof PHASES)[number];

/** Check a PHASE argument: a UsageError (exit 2) names the allowed values and what was given. */
export function checkPhase(value: string | undefined): Phase {
  return checkOneOf('PHASE', value ?? '(missing)', PHASES);
}
