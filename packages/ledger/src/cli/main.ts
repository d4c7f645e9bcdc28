// leap-ledger's dispatch: core's one dispatcher (the usage block, --help, an unknown or missing command), each
// command's own --help, and the lazy import of the changing commands.
import { dispatcher, type Action, type ActionRun } from '@leap/core';
import { STEP_QUERIES, type StepQuery } from '../queries.js';
import { COMMANDS, MAIN_FOOTER, SUMMARIES, USAGE } from './help.js';
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

/** The code of `command`: a query runs from this module, a change loads its module when it runs. */
async function commandRun(command: string): Promise<ActionRun<CliIo>> {
  if (command === 'list' || command === 'validate' || (STEP_QUERIES as readonly string[]).includes(command)) {
    return (argv, io) => runQuery(command as StepQuery | 'list' | 'validate', argv, io);
  }
  const changes = await import('./change-commands.js');
  if (command === 'tick' || command === 'clear-refactor-pending') return (argv, io) => changes.runCommit(command, argv, io);
  if (command === 'tick-criterion') return changes.runTickCriterion;
  if (command === 'preserve-attempt') return changes.runPreserve;
  if (command === 'attempts') return changes.runAttempts;
  return changes.runInit;
}

const ACTIONS: Record<string, Action<CliIo>> = Object.fromEntries(
  COMMANDS.map((command) => {
    const { summary, group } = SUMMARIES[command] as { summary: string; group: string };
    const load = async (): Promise<ActionRun<CliIo>> => {
      const run = await commandRun(command);
      return async (argv, io) => {
        if (!asksForHelp(argv)) return run(argv, io);
        io.stdout(`${USAGE[command]}\n`);
        return 0;
      };
    };
    return [command, { summary, group, load }];
  }),
);

/** Run `leap-ledger ARGV`; returns the exit code, throws LeapErrors (printed by runCli). */
export const main = (argv: readonly string[], io: CliIo): Promise<number> => dispatcher<CliIo>('leap-ledger', ACTIONS, { noun: 'COMMAND', footer: MAIN_FOOTER })([...argv], io);
