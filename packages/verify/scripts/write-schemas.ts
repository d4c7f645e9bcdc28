// Regenerate packages/verify/schemas/*.json from the zod schemas, and the standalone validators of
// src/schemas/answer-validators.generated.ts from them, and the test-file conventions' RegExp of
// src/test-file-conventions.generated.ts: `npm run schemas -w @leap/verify`.
import { writeFileSync } from 'node:fs';
import { renderSchemaFile } from '@leap/core/schemas';
import { renderAnswerValidators, verifyJsonSchemas } from '../src/schemas/answer-schemas.js';
import { renderTestFileConventions } from '../src/test-files.js';

for (const [name, schema] of Object.entries(verifyJsonSchemas())) {
  const file = new URL(`../schemas/${name}`, import.meta.url);
  writeFileSync(file, renderSchemaFile(schema));
  console.log(`wrote ${file.pathname}`);
}
const validators = new URL('../src/schemas/answer-validators.generated.ts', import.meta.url);
writeFileSync(validators, await renderAnswerValidators());
console.log(`wrote ${validators.pathname}`);
const conventions = new URL('../src/test-file-conventions.generated.ts', import.meta.url);
writeFileSync(conventions, renderTestFileConventions());
console.log(`wrote ${conventions.pathname}`);
