// The published JSON Schemas, generated from zod and committed under `schemas/` (validate-json.ts loads no zod).
import { z } from 'zod';
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
