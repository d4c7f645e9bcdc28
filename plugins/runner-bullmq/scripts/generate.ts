// Writes the gitignored schemas/ from the zod schemas: run before build, not by npm ci (tsc needs none of it).
import { writeSchemaFiles } from '@leap/core/schemas';
import { runnerJsonSchemas } from '../src/job-schema.js';

writeSchemaFiles(new URL('../schemas/', import.meta.url), await runnerJsonSchemas());
