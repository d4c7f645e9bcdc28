// The build's gitignored files derived from the zod schemas (issue 41); tsc needs none of them, so npm ci skips it.
import { writeSchemaFiles } from '@leap/core/schemas';
import { projectConfigJsonSchema } from '../src/project-config.js';

writeSchemaFiles(new URL('../schemas/', import.meta.url), { 'leap-config.schema.json': projectConfigJsonSchema() });
