// What the build derives from the zod schemas, gitignored (issue 41): run by the `generate` target before build
// and by `prepare` on npm ci (`npm run generate -w @leap/conductor`).
import { writeSchemaFiles } from '@leap/core/schemas';
import { projectConfigJsonSchema } from '../src/project-config.js';

writeSchemaFiles(new URL('../schemas/', import.meta.url), { 'leap-config.schema.json': projectConfigJsonSchema() });
