import { checkOneOf } from '@leap/core';

const PHASES = ['red', 'green', 'refactor'] as const;

export type Phase = (typeof PHASES)[number];

export function checkPhase(value: string | undefined): Phase {
  return checkOneOf('PHASE', value ?? '(missing)', PHASES);
}
