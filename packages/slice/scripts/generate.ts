// What the build derives from the zod schemas, gitignored (issue 41): run by the `generate` target before build
// and by `prepare` on npm ci (`npm run generate -w @leap/slice`).
import { writeGenerated, writeSchemaFiles } from '@leap/core/schemas';
import { renderSliceValidators, sliceJsonSchemas } from '../src/definition/json-schemas.js';

writeSchemaFiles(new URL('../schemas/', import.meta.url), sliceJsonSchemas());
writeGenerated(new URL('../src/definition/slice-validators.generated.ts', import.meta.url), await renderSliceValidators());
