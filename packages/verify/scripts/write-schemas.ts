// Regenerate packages/verify/schemas/*.json from the zod schemas: `npm run schemas -w @leap/verify`.
import { writeFileSync } from 'node:fs';
import { renderSchemaFile } from '@leap/core/schemas';
import { verifyJsonSchemas } from '../src/schemas/answer-schemas.js';

for (const [name, schema] of Object.entries(verifyJsonSchemas())) {
  const file = new URL(`../schemas/${name}`, import.meta.url);
  writeFileSync(file, renderSchemaFile(schema));
  console.log(`wrote ${file.pathname}`);
}
