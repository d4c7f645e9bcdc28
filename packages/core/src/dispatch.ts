// The one dispatcher of commands made of actions (`leap COMMAND`, `leap slice ACTION`, `leap tdd ACTION`):
// the usage block, --help, an unknown or missing action, and the lazy load of the one that runs.
import { UsageError } from './errors.js';
import type { Subcommand, SubcommandIo } from './subcommand.js';

/** One action: its line in the usage block and its code, loaded only when it runs. */
export interface Action {
  summary: string;
  load: () => Promise<Subcommand>;
}

/** How a dispatcher names and explains its actions. */
export interface DispatchOptions {
  /** The word in the usage line and the heading's: `ACTION` / `Actions` (default), `COMMAND` / `Commands`. */
  noun?: string;
  heading?: string;
  /** Lines after the list (default: `PROG ACTION --help tells more.`). */
  footer?: readonly string[];
  /** Arguments answered before any action is looked up (`--version`): an exit code, or undefined to go on. */
  before?: (argv: readonly string[], io: SubcommandIo) => number | undefined;
}

/** The usage block of a dispatcher: the usage line, each action with its summary, the footer. */
export function actionsUsage(prog: string, actions: Readonly<Record<string, Action>>, options: DispatchOptions = {}): string {
  const noun = options.noun ?? 'ACTION';
  const width = Math.max(...Object.keys(actions).map((name) => name.length));
  return [
    `Usage: ${prog} ${noun} [ARGS...]`,
    '',
    `${options.heading ?? 'Actions'}:`,
    ...Object.entries(actions).map(([name, action]) => `  ${name.padEnd(width)}  ${action.summary}`),
    '',
    ...(options.footer ?? [`${prog} ${noun} --help tells more.`]),
  ].join('\n');
}

/** A command that runs one of `actions`: `PROG --help` (or `-h`, `help`) prints the usage; no action or an unknown one is exit 2. */
export function dispatcher(prog: string, actions: Readonly<Record<string, Action>>, options: DispatchOptions = {}): Subcommand {
  const noun = (options.noun ?? 'ACTION').toLowerCase();
  return async (argv, io) => {
    const [name, ...rest] = argv;
    if (name === '--help' || name === '-h' || name === 'help') {
      io.stdout(`${actionsUsage(prog, actions, options)}\n`);
      return 0;
    }
    const early = options.before?.(argv, io);
    if (early !== undefined) return early;
    if (name === undefined) throw new UsageError(`expected ${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}\n${actionsUsage(prog, actions, options)}`);
    const action = Object.hasOwn(actions, name) ? actions[name] : undefined;
    if (action === undefined) throw new UsageError(`unknown ${noun} ${JSON.stringify(name)}: expected one of ${Object.keys(actions).join(', ')} (${prog} --help)`);
    return (await action.load())(rest, io);
  };
}
