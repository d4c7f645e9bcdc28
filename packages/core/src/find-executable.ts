// Executables found as a spawn without a shell finds them (the supervisor's 127, 126); not on --help's path.
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, join, resolve } from 'node:path';
import { orElse, shellWord } from './errors.js';

/** The first executable `name` on `path` (PATH's value; with a slash: from `cwd`), as a shell-less spawn finds it. */
export function findExecutable(name: string, path: string | undefined, cwd = process.cwd()): string | null {
  for (const dir of name.includes('/') ? [''] : (path ?? '').split(delimiter).filter((d) => d !== '')) {
    const file = resolve(cwd, dir, name);
    const isFile = orElse(() => statSync(file, { throwIfNoEntry: false })?.isFile() === true, false);
    if (isFile && orElse(() => (accessSync(file, constants.X_OK), true), false)) return file;
  }
  return null;
}

/** How a person in `cwd` runs this leap in a printed command: `npx leap`, `leap` when on PATH, else `node BIN`. */
export function leapCommand(cwd: string, env: NodeJS.ProcessEnv, bin: string = process.argv[1] ?? 'leap'): string {
  const real = (file: string | null) => (file === null ? null : orElse(() => realpathSync(file), null));
  // Not run through a leap bin (a test calling the code in process): the plain name is all there is to say.
  if (!/^leap(\.cjs)?$/.test(basename(bin))) return 'leap';
  const self = real(bin) ?? resolve(bin);
  for (let dir = resolve(cwd); ; dir = resolve(dir, '..')) {
    if (real(join(dir, 'node_modules', '.bin', 'leap')) === self) return 'npx leap';
    if (resolve(dir, '..') === dir) break;
  }
  if (real(findExecutable('leap', env.PATH, cwd)) === self) return 'leap';
  return `node ${shellWord(self)}`;
}
