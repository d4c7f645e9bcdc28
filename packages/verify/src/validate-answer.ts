// Validate an agent's answer against this package's published JSON Schemas, with ajv through core's
// `validate` entry: it loads ajv on first use and never zod (the schemas are published JSON already).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { compileJsonSchema, validateJson } from '@leap/core/validate';

/** One of this package's committed schemas (`verdict.schema.json`, `review.schema.json`). */
export function loadVerifySchema(fileName: string): Record<string, unknown> {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('@leap/verify/package.json'));
  return JSON.parse(readFileSync(join(root, 'schemas', fileName), 'utf8')) as Record<string, unknown>;
}

/** Check `data` against a published schema: null when it matches, else the first problem, naming `source`. */
export async function answerProblem(fileName: string, data: unknown, source: string): Promise<string | null> {
  try {
    await validateJson(loadVerifySchema(fileName), data, source);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Compile a published schema ahead of use (ajv's start-up overlaps the agents' run). */
export async function warmUpSchema(fileName: string): Promise<void> {
  await compileJsonSchema(loadVerifySchema(fileName));
}
