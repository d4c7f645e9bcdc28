import { schemaProblems } from './schema-problems.js';
import { checkSliceRules } from './slice-rules.js';
import type { Violation } from './violation.js';

export type ValidateOptions = { foldCase?: boolean | (() => boolean) };

export type SliceCheck = { violations: Violation[]; waves: string[][] | null };

/** Every violation of `value` as a slice file and, for a valid slice, its waves (the rules walk the graph anyway). */
export function checkSlice(value: unknown, options: ValidateOptions = {}): SliceCheck {
  const schema = schemaProblems(value);
  const rules = checkSliceRules(value, { foldCase: options.foldCase ?? false, schemaValid: schema.length === 0 });
  if (schema.length > 0 || rules.violations.length > 0)
    return { violations: [...schema, ...rules.violations], waves: null };
  const balls = (value as { balls: { id: string }[] }).balls;
  const waves: string[][] = [];
  for (let i = 0; i < balls.length; i++) (waves[rules.depth[i] as number] ??= []).push((balls[i] as { id: string }).id);
  return { violations: [], waves };
}

export const validateSlice = (value: unknown, options: ValidateOptions = {}) => checkSlice(value, options).violations;
