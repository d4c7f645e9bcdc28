// The one dispatcher of `leap COMMAND`, `leap slice ACTION`, `leap tdd ACTION` and `leap-ledger COMMAND`.
import { UsageError, didYouMean } from './errors.js';
import type { SubcommandIo } from './subcommand.js';

export type ActionRun<Io> = (argv: string[], io: Io) => Promise<number>;

/** `group`: the heading it is listed under (`Queries (...)`), its group's actions together; else `heading`. */
export type Action<Io = SubcommandIo> = { summary: string; load: () => Promise<ActionRun<Io>>; group?: string };

export interface DispatchOptions<Io = SubcommandIo> {
  /** The word in the usage line and the heading's: `ACTION` / `Actions` (default), `COMMAND` / `Commands`. */
  noun?: string;
  heading?: string;
  /** Lines after the list (default: `PROG ACTION --help tells more.`). */
  footer?: readonly string[];
  /** Arguments answered before any action is looked up (`--version`): an exit code, or undefined to go on. */
  before?: (argv: readonly string[], io: Io) => number | undefined;
}

type Actions<Io> = Readonly<Record<string, Action<Io>>>;

export function actionsUsage<Io>(prog: string, actions: Actions<Io>, options: DispatchOptions<Io> = {}): string {
  const noun = options.noun ?? 'ACTION';
  const width = Math.max(...Object.keys(actions).map((name) => name.length));
  const lines = [`Usage: ${prog} ${noun} [ARGS...]`, ''];
  let heading: string | undefined;
  for (const [name, action] of Object.entries(actions)) {
    const group = action.group ?? options.heading ?? 'Actions';
    if (group !== heading) lines.push(`${(heading = group)}:`);
    lines.push(`  ${name.padEnd(width)}  ${action.summary}`);
  }
  return [...lines, '', ...(options.footer ?? [`${prog} ${noun} --help tells more.`])].join('\n');
}

/** `PROG --help` (or `-h`, `help`) prints the usage; no action or an unknown one is exit 2. */
export function dispatcher<Io extends { stdout(text: string): void } = SubcommandIo>(
  prog: string,
  actions: Actions<Io>,
  options: DispatchOptions<Io> = {},
): ActionRun<Io> {
  const noun = (options.noun ?? 'ACTION').toLowerCase();
  return async (argv, io) => {
    const [name, ...rest] = argv;
    if (name === '--help' || name === '-h' || name === 'help')
      return (io.stdout(`${actionsUsage(prog, actions, options)}\n`), 0);
    const early = options.before?.(argv, io);
    if (early !== undefined) return early;
    if (name === undefined)
      throw new UsageError(
        `expected ${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}\n${actionsUsage(prog, actions, options)}`,
      );
    const action = Object.hasOwn(actions, name) ? actions[name] : undefined;
    if (action === undefined)
      throw new UsageError(
        `unknown ${noun} ${JSON.stringify(name)}${didYouMean(name, Object.keys(actions))}: ` +
          `expected one of ${Object.keys(actions).join(', ')} (${prog} --help)`,
      );
    return (await action.load())(rest, io);
  };
}
