// leap-ledger's dispatch: the subcommand, --help, and the lazy import of the changing commands.
import { UsageError } from '@leap/core';
import { EXIT } from '../exit-codes.js';
import { STEP_QUERIES, type StepQuery } from '../queries.js';
import { COMMANDS, MAIN_USAGE, USAGE } from './help.js';
import type { CliIo } from './io.js';
import { joinOptionValues } from './argv.js';
import { runQuery } from './query-commands.js';

// Every string option of any subcommand: their values (a title "--help") are never read as --help.
const STRING_OPTIONS = Object.fromEntries(['issue', 'ledger', 'step', 'body', 'match', 'plan'].map((name) => [name, { type: 'string' as const }]));
STRING_OPTIONS.message = { type: 'string', short: 'm' } as never;

function asksForHelp(args: readonly string[]): boolean {
  for (const arg of joinOptionValues(args, STRING_OPTIONS)) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}

/** Run `leap-ledger ARGV`; returns the exit code, throws LeapErrors (printed by runCli). */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError(`expected a command\n${MAIN_USAGE}`);
  if (command === '--help' || command === '-h' || command === 'help') {
    io.stdout(`${MAIN_USAGE}\n`);
    return EXIT.ok;
  }
  const usage = USAGE[command];
  if (usage === undefined) {
    throw new UsageError(`unknown command ${JSON.stringify(command)}: expected one of ${COMMANDS.join(', ')} (leap-ledger --help)`);
  }
  if (asksForHelp(rest)) {
    io.stdout(`${usage}\n`);
    return EXIT.ok;
  }
  if (command === 'list' || command === 'validate' || (STEP_QUERIES as readonly string[]).includes(command)) {
    return runQuery(command as StepQuery | 'list' | 'validate', rest, io);
  }
  const changes = await import('./change-commands.js');
  switch (command) {
    case 'tick':
    case 'clear-refactor-pending':
      return changes.runCommit(command, rest, io);
    case 'tick-criterion':
      return changes.runTickCriterion(rest, io);
    case 'preserve-attempt':
      return changes.runPreserve(rest, io);
    case 'attempts':
      return changes.runAttempts(rest, io);
    default:
      return changes.runInit(rest, io);
  }
}
