// Copy the repository's skills (../../skills) into dist/skills, so the published package carries the
// files `leap init --skills` copies into a user's repository (dist is in the package's "files").
import { cpSync, existsSync, rmSync } from 'node:fs';

const from = '../../skills';
if (!existsSync(from)) throw new Error(`copy-skills: no ${from} beside the package`);
rmSync('dist/skills', { recursive: true, force: true });
cpSync(from, 'dist/skills', { recursive: true });
