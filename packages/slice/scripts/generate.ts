// Write what the build derives from the zod schemas, gitignored (issue 41): ajv's standalone validators of
// src/definition/slice-validators.generated.ts. The `generate` target runs it before `build` (so before the
// tests), and `prepare` on npm ci, before `npm test`'s tsc: `npm run generate -w @leap/slice`.
import { fileURLToPath } from 'node:url';
import { readFileIfExists, writeFileAtomic } from '@leap/core';
import { renderSliceValidators } from '../src/definition/json-schemas.js';

// Unchanged text is not written again (nor its mtime moved); changed text replaces the file whole.
const write = (url: URL, text: string) => readFileIfExists(fileURLToPath(url)) === text || writeFileAtomic(fileURLToPath(url), text);

write(new URL('../src/definition/slice-validators.generated.ts', import.meta.url), await renderSliceValidators());
