// ../../skills into dist/skills: the published package carries what `leap init --skills` copies.
import { cpSync, existsSync, rmSync } from 'node:fs';

const from = '../../skills';
if (!existsSync(from)) throw new Error(`copy-skills: no ${from} beside the package`);
rmSync('dist/skills', { recursive: true, force: true });
cpSync(from, 'dist/skills', { recursive: true });
