// Regenerate packages/slice/schemas/*.json (committed) from the zod schemas, then what the build generates
// from them (generate.ts): `npm run schemas -w @leap/slice`.
import { writeFileSync } from 'node:fs';
import { renderSchemaFile } from '@leap/core/schemas';
import { sliceJsonSchemas } from '../src/definition/json-schemas.js';

for (const [name, schema] of Object.entries(sliceJsonSchemas())) {
  const file = new URL(`../schemas/${name}`, import.meta.url);
  writeFileSync(file, renderSchemaFile(schema));
  console.log(`wrote ${file.pathname}`);
}
await import('./generate.js');
