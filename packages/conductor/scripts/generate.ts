// What the build derives from the zod schemas, gitignored (issue 41): run by the `generate` target before build
// (`npm run generate -w @leap/conductor`); tsc needs none of it, so npm ci does not run it.
import { writeSchemaFiles } from '@leap/core/schemas';
import { projectConfigJsonSchema } from '../src/project-config.js';

writeSchemaFiles(new URL('../schemas/', import.meta.url), { 'leap-config.schema.json': projectConfigJsonSchema() });
