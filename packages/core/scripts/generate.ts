// What the build derives from the zod schemas, gitignored (issue 41): run by the `generate` target before build
// (`npm run generate -w @leap/core`); tsc needs none of it, so npm ci does not run it.
import { coreJsonSchemas, writeSchemaFiles } from '../src/json-schema.js';

writeSchemaFiles(new URL('../schemas/', import.meta.url), coreJsonSchemas());
