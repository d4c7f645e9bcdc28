// Regenerate plugins/runner-bullmq/schemas/*.json from the zod schemas of src/job-schema.ts:
// `node --import tsx scripts/write-schemas.ts` (`npm run schemas -w @leap/runner-bullmq`).
import { writeFileSync } from 'node:fs';
import { renderSchemaFile } from '@leap/core/schemas';
import { runnerJsonSchemas } from '../src/job-schema.js';

for (const [name, schema] of Object.entries(await runnerJsonSchemas())) {
  const file = new URL(`../schemas/${name}`, import.meta.url);
  writeFileSync(file, renderSchemaFile(schema));
  console.log(`wrote ${file.pathname}`);
}
