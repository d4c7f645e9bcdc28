// Validate an agent's answer against this package's published JSON Schemas, with ajv through core.
// Core's schema module loads zod and ajv, so it is imported at run time by name: a bundler that
// inlined it would hoist those imports to start-up, and `leap-verify prompt` must not pay for them.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

type CoreSchemas = typeof import('@leap/core/schemas');
const CORE_SCHEMAS = '@leap/core/schemas';

/** Core's heavy schema module, loaded on first use. */
export function loadCoreSchemas(): Promise<CoreSchemas> {
  return import(CORE_SCHEMAS) as Promise<CoreSchemas>;
}

/** One of this package's committed schemas (`verdict.schema.json`, `review.schema.json`). */
export function loadVerifySchema(fileName: string): Record<string, unknown> {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('@leap/verify/package.json'));
  return JSON.parse(readFileSync(join(root, 'schemas', fileName), 'utf8')) as Record<string, unknown>;
}

/** Check `data` against a published schema: null when it matches, else the first problem, naming `source`. */
export async function answerProblem(fileName: string, data: unknown, source: string): Promise<string | null> {
  const { validateJson } = await loadCoreSchemas();
  try {
    await validateJson(loadVerifySchema(fileName), data, source);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Compile a published schema ahead of use (ajv's start-up overlaps the agents' run). */
export async function warmUpSchema(fileName: string): Promise<void> {
  const { compileJsonSchema } = await loadCoreSchemas();
  await compileJsonSchema(loadVerifySchema(fileName));
}
