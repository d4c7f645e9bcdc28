// The published JSON Schemas, generated from zod into `schemas/` by the build (validate-json.ts loads no zod).
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-write.js';
import { eventSchema } from './events/event-schema.js';
import { readFileIfExists } from './read-file.js';

export function toPublishedSchema(schema: z.ZodType, id: string, title: string): Record<string, unknown> {
  return { $id: id, title, ...z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) };
}

type Node = { [key: string]: unknown };
/** `anyOf: [S, {type: null}]` as S of `type: [T, 'null']`: the same check, without ajv's code for a failed branch. */
export function collapseNullable<T>(node: T): T {
  if (Array.isArray(node)) return node.map(collapseNullable) as T;
  if (node === null || typeof node !== 'object') return node;
  const { anyOf, ...rest } = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, collapseNullable(v)])) as Node;
  const [some, none] = (Array.isArray(anyOf) && anyOf.length === 2 ? anyOf : []) as Node[];
  const plain = typeof some?.type === 'string' && !('enum' in some) && !('const' in some);
  if (plain && JSON.stringify(none) === '{"type":"null"}') return { ...rest, ...some, type: [some.type, 'null'] } as T;
  return (anyOf === undefined ? rest : { ...rest, anyOf }) as T;
}

export function coreJsonSchemas(): Record<string, Record<string, unknown>> {
  return {
    'events.schema.json': toPublishedSchema(eventSchema, 'https://leap.dev/schemas/events.schema.json', 'LEAP event'),
  };
}

/** Render a schema file's bytes, so the generator and the drift test agree on formatting. */
export const renderSchemaFile = (schema: Record<string, unknown>): string => `${JSON.stringify(schema, null, 2)}\n`;

/** A generated file, written only when its text changed (its mtime kept otherwise): the `generate` scripts'. */
export function writeGenerated(url: URL, text: string): void {
  const file = fileURLToPath(url);
  mkdirSync(fileURLToPath(new URL('.', url)), { recursive: true });
  if (readFileIfExists(file) !== text) writeFileAtomic(file, text);
}

export function writeSchemaFiles(dir: URL, schemas: Record<string, Record<string, unknown>>): void {
  for (const [name, schema] of Object.entries(schemas)) writeGenerated(new URL(name, dir), renderSchemaFile(schema));
}
