// `leap SUB ...`: find the subcommand, load it, run it. Help and errors are decided here.
import { actionsUsage, dispatcher, type SubcommandIo } from '@leap/core';
import { COMMANDS } from './commands.js';
import { readVersion } from './version.js';

const OPTIONS = {
  noun: 'COMMAND',
  heading: 'Commands',
  footer: [
    "leap --version prints the toolchain's version.",
    "Every command answers --help. Exit codes are each command's own; 2 is always bad input.",
  ],
  before: (argv: readonly string[], io: SubcommandIo) =>
    argv[0] === '--version' || argv[0] === '-V' ? (io.stdout(`${readVersion()}\n`), 0) : undefined,
};

export const mainUsage = (): string => actionsUsage('leap', COMMANDS, OPTIONS);

export const main = dispatcher('leap', COMMANDS, OPTIONS);
