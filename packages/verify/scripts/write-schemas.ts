// Regenerate packages/verify/schemas/*.json (committed) from the zod schemas, then what the build generates
// from the sources (generate.ts): `npm run schemas -w @leap/verify`.
import { writeFileSync } from 'node:fs';
import { renderSchemaFile } from '@leap/core/schemas';
import { verifyJsonSchemas } from '../src/schemas/answer-schemas.js';

for (const [name, schema] of Object.entries(verifyJsonSchemas())) {
  const file = new URL(`../schemas/${name}`, import.meta.url);
  writeFileSync(file, renderSchemaFile(schema));
  console.log(`wrote ${file.pathname}`);
}
await import('./generate.js');
