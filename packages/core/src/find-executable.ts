// Is a command installed? Resolved the way a spawn without a shell resolves it: the supervisor's check
// before it starts a leaf (127 and 126 keep their meaning), and the agents' readiness and verify's own.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/** The first executable file `name` runs on `path` (PATH's value; a name with a slash is taken as it is, from `cwd`), or null. */
export function findExecutable(name: string, path: string | undefined, cwd = process.cwd()): string | null {
  const candidates = name.includes('/')
    ? [resolve(cwd, name)]
    : (path ?? '')
        .split(delimiter)
        .filter((d) => d !== '')
        .map((d) => join(resolve(cwd, d), name));
  for (const file of candidates) {
    try {
      if (!statSync(file, { throwIfNoEntry: false })?.isFile()) continue;
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}
