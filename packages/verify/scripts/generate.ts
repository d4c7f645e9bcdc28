// Derived from the sources, gitignored (issue 41): the `generate` target runs it before build, `prepare` on npm ci.
import { existsSync, writeFileSync } from 'node:fs';
import { writeGenerated, writeSchemaFiles } from '@leap/core/schemas';
import { renderAnswerValidators, verifyJsonSchemas } from '../src/schemas/answer-schemas.js';

writeSchemaFiles(new URL('../schemas/', import.meta.url), verifyJsonSchemas());
const validators = new URL('../src/schemas/answer-validators.generated.ts', import.meta.url);
writeGenerated(validators, await renderAnswerValidators());
// test-files.ts renders the conventions and imports them too: a fresh clone gets a stand-in (matching nothing) first.
const conventions = new URL('../src/test-file-conventions.generated.ts', import.meta.url);
if (!existsSync(conventions)) writeFileSync(conventions, 'export const TEST_FILE_CONVENTIONS_SOURCE = "(?!)";\n');
const { renderTestFileConventions } = await import('../src/test-files.js');
writeGenerated(conventions, renderTestFileConventions());
