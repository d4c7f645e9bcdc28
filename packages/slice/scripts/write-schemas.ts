// Regenerate packages/slice/schemas/*.json from the zod schemas, and the standalone validators of
// src/definition/slice-validators.generated.ts from them: `node --import tsx scripts/write-schemas.ts`
// (`npm run schemas -w @leap/slice`).
import { writeFileSync } from 'node:fs';
import { renderSchemaFile } from '@leap/core/schemas';
import { renderSliceValidators, sliceJsonSchemas } from '../src/definition/json-schemas.js';

for (const [name, schema] of Object.entries(sliceJsonSchemas())) {
  const file = new URL(`../schemas/${name}`, import.meta.url);
  writeFileSync(file, renderSchemaFile(schema));
  console.log(`wrote ${file.pathname}`);
}
const validators = new URL('../src/definition/slice-validators.generated.ts', import.meta.url);
writeFileSync(validators, await renderSliceValidators());
console.log(`wrote ${validators.pathname}`);
