// Every `leap SUB ...` command (CONTRACT section 12), loaded lazily by the umbrella bin; finding executables.
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, join, resolve } from 'node:path';
import { writeFd } from './cli.js';
import { shellWord } from './errors.js';
import { orElse } from './read-file.js';

/** What a subcommand reads and writes, so it runs the same from the bin and from tests. */
export interface SubcommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  isTTY: boolean;
}

/** `leap SUB ARGV...`: returns the exit code; throws LeapErrors, which the bin prints with their codes. */
export type Subcommand = (argv: string[], io: SubcommandIo) => Promise<number>;

export function processSubcommandIo(): SubcommandIo {
  return {
    stdout: (text) => writeFd(1, text),
    stderr: (text) => writeFd(2, text),
    cwd: process.cwd(),
    env: process.env,
    // The descriptor, not process.stdout (3 ms to build); a getter, so a subcommand that never asks pays nothing.
    get isTTY() {
      return stdoutIsTerminal();
    },
  };
}

/** One fstat for most descriptors; only a possible terminal loads node:tty (2 to 3 ms of start-up). */
export function stdoutIsTerminal(fd = 1): boolean {
  const stat = orElse(() => process.getBuiltinModule('node:fs').fstatSync(fd), null);
  // Linux's major number 1 is the memory devices (null, zero, full, random...), never a terminal.
  if (stat?.isCharacterDevice() !== true || (process.platform === 'linux' && ((stat.rdev >> 8) & 0xfff) === 1))
    return false;
  return process.getBuiltinModule('node:tty').isatty(fd);
}

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
