// Build time: the published JSON Schemas from zod, and ajv's validators compiled ahead (none at run time, ~100 ms).
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-write.js';
import { eventSchema } from './events/event-schema.js';
import { readFileIfExists } from './read-file.js';
import { AJV_OPTIONS } from './validate-json.js';

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

export const coreJsonSchemas = (): Record<string, Record<string, unknown>> => ({
  'events.schema.json': toPublishedSchema(eventSchema, 'https://leap.dev/schemas/events.schema.json', 'LEAP event'),
});

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

const RUNTIME_HELPER = /const (\w+) = require\("ajv\/dist\/runtime\/ucs2length"\)\.default;/g;

// ajv's `minLength` counts code points (a surrogate pair is one), as string iteration does.
const COUNT_CODE_POINTS = `function countCodePoints(text) {
  let count = 0;
  for (const _ of text) count++;
  return count;
}`;

/** `header`, then ajv's standalone validators; a schema needing an ajv runtime helper not defined here fails here. */
export async function renderValidatorModule(
  validators: readonly { exportName: string; schema: Record<string, unknown> }[],
  header: string,
): Promise<string> {
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const standalone = await import('ajv/dist/standalone/index.js');
  const standaloneCode =
    (standalone.default as unknown as { default?: typeof standalone.default }).default ?? standalone.default;
  const ajv = new Ajv2020({ ...AJV_OPTIONS, code: { source: true, esm: true, lines: true } });
  const refs: Record<string, string> = {};
  for (const { exportName, schema } of validators) {
    if (typeof schema.$id !== 'string')
      throw new TypeError(
        `Expected the schema of ${exportName} to have a string $id, got ${JSON.stringify(schema.$id)}`,
      );
    ajv.addSchema(schema);
    refs[exportName] = schema.$id;
  }
  const code = standaloneCode(ajv, refs)
    .replace(/^"use strict";\n?/, '')
    .replace(RUNTIME_HELPER, 'const $1 = countCodePoints;');
  const needs = /require\("([^"]+)"\)/.exec(code);
  if (needs !== null)
    throw new Error(
      `ajv's standalone code for ${Object.keys(refs).join(', ')} needs ${needs[1]} at run time; ` +
        'renderValidatorModule provides only ucs2length',
    );
  return `${header.trimEnd()}\n// @ts-nocheck\n${COUNT_CODE_POINTS}\n${code.trimEnd()}\n`;
}
