// The skills `leap init --skills` copies: the package's dist/skills (built from skills/), or a clone's skills/.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { findPackageRoot } from './version.js';

/** Where `leap init --skills` with no folder puts them, as Claude Code reads them. */
export const DEFAULT_SKILLS_DIR = '.claude/skills';

export function findSkillsDir(from: string = import.meta.url): string {
  const { dir } = findPackageRoot(from);
  const candidates = [join(dir, 'dist', 'skills'), join(dir, '..', '..', 'skills')];
  const found = candidates.find((c) => existsSync(join(c, 'tdd', 'SKILL.md')));
  if (found === undefined)
    throw new Error(`the skills are not in this installation of @leap/cli (looked in ${candidates.join(', ')})`);
  return found;
}

/** Every file of the skills folder, relative paths with "/", in a stable order. */
export function readSkills(dir: string): { path: string; content: string }[] {
  const files: { path: string; content: string }[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const path = rel === '' ? name : `${rel}/${name}`;
      if (statSync(join(dir, path)).isDirectory()) walk(path);
      else files.push({ path, content: readFileSync(join(dir, path), 'utf8') });
    }
  };
  walk('');
  return files;
}
