// The bail causes of CONTRACT section 9 and their class, decided in one place (the README's bail table).
import type { BailCause } from './types.js';

/** Each cause's class: `process` (the run's inputs or budget need a person) or `system` (a leaf or an agent CLI failed). */
export const BAIL_CLASSES: Readonly<Record<BailCause, 'process' | 'system'>> = {
  'needs-user': 'process',
  'revision-budget': 'process',
  'baseline-red': 'process',
  'dirty-tree': 'process',
  'commit-refused': 'process',
  'cost-budget': 'process',
  'killed-external': 'system',
  'killed-timeout': 'system',
  'killed-stuck': 'system',
  'agent-missing': 'system',
  'agent-failed': 'system',
};

/** The class of `cause`. */
export function bailClass(cause: BailCause): 'process' | 'system' {
  return BAIL_CLASSES[cause];
}

/** Thrown inside a run to end it with a bail; the run catches it, keeps finished steps and narrates it. */
export class Bail extends Error {
  readonly bailCause: BailCause;
  /** The whole narration: what happened and, for needs-user, the whole question. */
  readonly narration: string;
  constructor(cause: BailCause, narration: string) {
    super(`bail: ${cause}: ${narration}`);
    this.bailCause = cause;
    this.narration = narration;
  }
}

/** Thrown inside a run to end it at a stop request; `where` says where it stopped. */
export class Stopped extends Error {
  readonly where: string;
  readonly mode: string;
  constructor(mode: string, where: string) {
    super(`stopped (${mode}) ${where}`);
    this.mode = mode;
    this.where = where;
  }
}
