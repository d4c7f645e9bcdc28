// What the build derives from the zod schemas, gitignored (issue 41): run by the `generate` target before build
// and by `prepare` on npm ci (`npm run generate -w @leap/core`).
import { coreJsonSchemas, writeSchemaFiles } from '../src/json-schema.js';

writeSchemaFiles(new URL('../schemas/', import.meta.url), coreJsonSchemas());
