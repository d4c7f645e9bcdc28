// Every `leap SUB ...` command (CONTRACT section 12), loaded lazily by the umbrella bin.
import { writeFd } from './cli.js';
import { orElse } from './errors.js';

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
