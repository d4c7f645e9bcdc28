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
      return process.getBuiltinModule('node:tty').isatty(1);
    },
  };
}
