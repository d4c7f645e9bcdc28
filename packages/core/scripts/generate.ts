// Schemas and event validators derived from zod, gitignored (issue 41): `generate` before build, `prepare` on npm ci.
import { eventSchema } from '../src/events/event-schema.js';
import {
  collapseNullable,
  coreJsonSchemas,
  toPublishedSchema,
  writeGenerated,
  writeSchemaFiles,
  renderValidatorModule,
} from '../src/validator-module.js';

writeSchemaFiles(new URL('../schemas/', import.meta.url), coreJsonSchemas());
const validators = eventSchema.options.map((option) => {
  const kind = option.shape.event.value;
  const schema = toPublishedSchema(option, `https://leap.dev/schemas/events/${kind}`, kind);
  return { exportName: kind, schema: collapseNullable(schema) };
});
const header = '// One ajv validator per event kind, from event-schema.ts by scripts/generate.ts: no zod at run time.';
const file = new URL('../src/events/event-validators.generated.ts', import.meta.url);
writeGenerated(file, await renderValidatorModule(validators, header));
