// What the build derives from the zod schemas, gitignored (issue 41): run by `generate` before build and on npm ci.
import { writeGenerated, writeSchemaFiles } from '@leap/core/schemas';
import { renderSliceValidators, sliceJsonSchemas } from '../src/definition/json-schemas.js';

writeSchemaFiles(new URL('../schemas/', import.meta.url), sliceJsonSchemas());
writeGenerated(
  new URL('../src/definition/slice-validators.generated.ts', import.meta.url),
  await renderSliceValidators(),
);
