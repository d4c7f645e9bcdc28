// `leap SUB ...`: find the subcommand, load it, run it. Help and errors are decided here.
import { UsageError, type SubcommandIo } from '@leap/core';
import { COMMANDS } from './commands.js';
import { readVersion } from './version.js';

/** `leap --help`. */
export function mainUsage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`);
  return [
    'Usage: leap COMMAND [ARGS...]',
    '',
    'Commands:',
    ...lines,
    '',
    'leap --version prints the toolchain\'s version.',
    'Every command answers --help. Exit codes are each command\'s own; 2 is always bad input.',
  ].join('\n');
}

/** Run `leap ARGV...`; returns the exit code. */
export async function main(argv: string[], io: SubcommandIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) throw new UsageError(`expected a command\n${mainUsage()}`);
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(`${mainUsage()}\n`);
    return 0;
  }
  if (name === '--version' || name === '-V') {
    io.stdout(`${readVersion()}\n`);
    return 0;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry === undefined) {
    throw new UsageError(`unknown command ${JSON.stringify(name)}: expected one of ${Object.keys(COMMANDS).join(', ')} (leap --help)`);
  }
  const command = await entry.load();
  return command(rest, io);
}
