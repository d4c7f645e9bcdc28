// What a command reads and writes, so the commands run the same from the bin and from tests.
import { writeFd } from '@leap/core';
import { readStdinBytes, stdinIsDevice } from '../read-input.js';

/** A command's surroundings. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Stdin whole; throws a UsageError on a terminal. `hint` says what was expected. */
  stdin(hint: string): Buffer;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The process's own streams, folder and environment. */
export function processIo(): CliIo {
  return {
    stdout: (text) => writeFd(1, text),
    stderr: (text) => writeFd(2, text),
    stdin: (hint) => readStdinBytes(stdinIsDevice(), hint),
    cwd: process.cwd(),
    env: process.env,
  };
}
