// `validateSlice`: the schema, then every rule of CONTRACT section 7, every violation at once.
import { schemaProblems } from './schema-problems.js';
import { sliceRuleViolations } from './slice-rules.js';
import type { Violation } from './violation.js';

/** Options of `validateSlice`. */
export interface ValidateOptions {
  /** Whether paths differing only in case are one file (as on macOS); false unless said. */
  foldCase?: boolean;
}

/** Every violation of `value` as a slice file: its JSON Schema, then the rules; none when it is valid. */
export function validateSlice(value: unknown, options: ValidateOptions = {}): Violation[] {
  return [...schemaProblems(value), ...sliceRuleViolations(value, { foldCase: options.foldCase === true })];
}
