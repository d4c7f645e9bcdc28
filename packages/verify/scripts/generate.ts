// Write what the build derives from this package's sources, gitignored (issue 41): ajv's standalone validators
// of src/schemas/answer-validators.generated.ts and picomatch's RegExp of src/test-file-conventions.generated.ts.
// The `generate` target runs it before `build` (so before the tests), and `prepare` on npm ci, before
// `npm test`'s tsc: `npm run generate -w @leap/verify`.
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readFileIfExists, writeFileAtomic } from '@leap/core';
import { renderAnswerValidators } from '../src/schemas/answer-schemas.js';

// Unchanged text is not written again (nor its mtime moved); changed text replaces the file whole.
const write = (url: URL, text: string) => readFileIfExists(fileURLToPath(url)) === text || writeFileAtomic(fileURLToPath(url), text);

write(new URL('../src/schemas/answer-validators.generated.ts', import.meta.url), await renderAnswerValidators());
// test-files.ts renders the conventions and imports them too: a fresh clone gets a stand-in (matching nothing) first.
const conventions = new URL('../src/test-file-conventions.generated.ts', import.meta.url);
if (!existsSync(conventions)) writeFileSync(conventions, 'export const TEST_FILE_CONVENTIONS_SOURCE = "(?!)";\n');
const { renderTestFileConventions } = await import('../src/test-files.js');
write(conventions, renderTestFileConventions());
