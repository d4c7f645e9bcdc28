// Schemas derived from zod, gitignored (issue 41): `generate` runs it before build; tsc and npm ci need none.
import { coreJsonSchemas, writeSchemaFiles } from '../src/json-schema.js';

writeSchemaFiles(new URL('../schemas/', import.meta.url), coreJsonSchemas());
