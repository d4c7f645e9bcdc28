// Outside JSON checked by ajv against a published schema; loads no zod, and ajv only at the first validation.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { FileFormatError } from './errors.js';

type Validate = ((data: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };
const compiled = new Map<string, Validate>();
export const AJV_OPTIONS = { strict: false, validateFormats: false, allErrors: false } as const;

/** Compile a JSON Schema with ajv (draft 2020-12); formats are checked by the schema's own patterns. */
export async function compileJsonSchema(schema: Record<string, unknown>): Promise<Validate> {
  const key = JSON.stringify(schema);
  if (!compiled.has(key)) {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    compiled.set(key, new Ajv2020(AJV_OPTIONS).compile(schema) as Validate);
  }
  return compiled.get(key)!;
}

export function loadPublishedSchema(fileName: string): Record<string, unknown> {
  const path = createRequire(import.meta.url).resolve(`@leap/core/schemas/${fileName}`);
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}

export async function validateJson(schema: Record<string, unknown>, data: unknown, source: string): Promise<void> {
  const validate = await compileJsonSchema(schema);
  if (validate(data)) return;
  const first = validate.errors?.[0];
  const problem = `${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}`;
  throw new FileFormatError(source, undefined, `does not match ${String(schema.$id ?? 'the schema')}: ${problem}`);
}
