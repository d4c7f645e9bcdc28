// The shape of every `leap SUB ...` command (CONTRACT section 12): the umbrella bin loads one
// subcommand lazily and hands it its arguments and surroundings; the subcommand returns its exit code.
import { writeFd } from './cli.js';

/** What a subcommand reads and writes, so it runs the same from the bin and from tests. */
export interface SubcommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Whether stdout is a terminal (progress lines, colours, redrawing). */
  isTTY: boolean;
}

/** `leap SUB ARGV...`: returns the exit code; throws LeapErrors, which the bin prints with their codes. */
export type Subcommand = (argv: string[], io: SubcommandIo) => Promise<number>;

/** The process's own streams, folder and environment. */
export function processSubcommandIo(): SubcommandIo {
  return {
    stdout: (text) => writeFd(1, text),
    stderr: (text) => writeFd(2, text),
    cwd: process.cwd(),
    env: process.env,
    // Asked of the descriptor, not of process.stdout: building that stream costs about 3 ms of start-up,
    // and every subcommand writes through writeFd instead. A getter, so a subcommand that never asks pays nothing.
    get isTTY() {
      return stdoutIsTerminal();
    },
  };
}

/**
 * Whether descriptor 1 is a terminal. A pipe, a file, a socket or (on Linux) a memory device such as
 * /dev/null is answered by one fstat; only a character device that may be a terminal is asked of
 * node:tty, whose loading (with net and stream) costs 2 to 3 ms of start-up.
 */
export function stdoutIsTerminal(fd = 1): boolean {
  let stat: import('node:fs').Stats;
  try {
    stat = process.getBuiltinModule('node:fs').fstatSync(fd);
  } catch {
    return false;
  }
  if (!stat.isCharacterDevice()) return false;
  // Linux's major number 1 is the memory devices (null, zero, full, random...), never a terminal.
  if (process.platform === 'linux' && ((stat.rdev >> 8) & 0xfff) === 1) return false;
  return process.getBuiltinModule('node:tty').isatty(fd);
}
