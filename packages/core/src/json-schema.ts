// The published JSON Schemas: generated from the zod schemas, committed under `schemas/`,
// and used by ajv to validate JSON that comes from outside.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { FileFormatError } from './errors.js';
import { eventSchema } from './events/event-schema.js';

/** Generate the JSON Schema of a zod schema, with the `$id` it is published under. */
export function toPublishedSchema(schema: z.ZodType, id: string, title: string): Record<string, unknown> {
  return { $id: id, title, ...z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) };
}

/** The schemas this package publishes, by file name. */
export function coreJsonSchemas(): Record<string, Record<string, unknown>> {
  return {
    'events.schema.json': toPublishedSchema(eventSchema, 'https://leap.dev/schemas/events.schema.json', 'LEAP event'),
  };
}

/** Render a schema file's bytes, so the generator and the drift test agree on formatting. */
export function renderSchemaFile(schema: Record<string, unknown>): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

type Validate = ((data: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };
const compiled = new Map<string, Validate>();

/** Compile a JSON Schema with ajv (draft 2020-12); formats are checked by the schema's own patterns. */
export async function compileJsonSchema(schema: Record<string, unknown>): Promise<Validate> {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached !== undefined) return cached;
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
  const validate = ajv.compile(schema) as Validate;
  compiled.set(key, validate);
  return validate;
}

/** Load one of this package's published schemas from `schemas/`. */
export function loadPublishedSchema(fileName: string): Record<string, unknown> {
  const require = createRequire(import.meta.url);
  const path = require.resolve(`@leap/core/schemas/${fileName}`);
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}

/** Validate outside JSON against a published schema; throws FileFormatError naming `source` and the first problem. */
export async function validateJson(schema: Record<string, unknown>, data: unknown, source: string): Promise<void> {
  const validate = await compileJsonSchema(schema);
  if (validate(data)) return;
  const first = validate.errors?.[0];
  throw new FileFormatError(source, undefined, `does not match ${String(schema.$id ?? 'the schema')}: ${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}`);
}
