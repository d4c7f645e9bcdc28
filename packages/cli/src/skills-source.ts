// The skills `leap init --skills` copies: the package's dist/skills (built from skills/), or a clone's skills/.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { findPackageRoot } from './version.js';

/** Where `leap init --skills` with no folder puts them, as Claude Code reads them. */
export const DEFAULT_SKILLS_DIR = '.claude/skills';

export function findSkillsDir(): string {
  const { dir } = findPackageRoot();
  const candidates = [join(dir, 'dist', 'skills'), join(dir, '..', '..', 'skills')];
  const found = candidates.find((c) => existsSync(join(c, 'tdd', 'SKILL.md')));
  if (found === undefined)
    throw new Error(`the skills are not in this installation of @leap/cli (looked in ${candidates.join(', ')})`);
  return found;
}

/** Every file of the skills folder, relative paths with "/", in a stable order. */
export function readSkills(dir: string, rel = ''): { path: string; content: string }[] {
  return readdirSync(join(dir, rel))
    .sort()
    .flatMap((name) => {
      const path = rel === '' ? name : `${rel}/${name}`;
      if (statSync(join(dir, path)).isDirectory()) return readSkills(dir, path);
      return [{ path, content: readFileSync(join(dir, path), 'utf8') }];
    });
}
