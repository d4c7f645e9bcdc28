// Regenerate packages/core/schemas/*.json from the zod schemas: `npm run schemas -w @leap/core`.
import { writeFileSync } from 'node:fs';
import { coreJsonSchemas, renderSchemaFile } from '../src/json-schema.js';

for (const [name, schema] of Object.entries(coreJsonSchemas())) {
  const file = new URL(`../schemas/${name}`, import.meta.url);
  writeFileSync(file, renderSchemaFile(schema));
  console.log(`wrote ${file.pathname}`);
}
