// Regenerate packages/conductor/schemas/leap-config.schema.json from the zod schema: `npm run schemas -w @leap/conductor`.
import { writeFileSync } from 'node:fs';
import { projectConfigJsonSchema } from '../src/project-config.js';

const file = new URL('../schemas/leap-config.schema.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(projectConfigJsonSchema(), null, 2)}\n`);
console.log(`wrote ${file.pathname}`);
