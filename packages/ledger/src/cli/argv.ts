// Argument parsing for the subcommands, on core's parseCli (util.parseArgs, strict).
import { UsageError, parseCli, type CliOption, type CliValues } from '@leap/core';

/**
 * Join each string option with its value (`--step VALUE` -> `--step=VALUE`), so a value that starts with
 * `-` (a title like "-v flag") is taken as the value, as the old scripts took it, instead of parseArgs
 * refusing it as ambiguous. Everything after `--` is left alone.
 */
export function joinOptionValues(argv: readonly string[], options: Record<string, CliOption>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const name = arg.startsWith('--') ? arg.slice(2) : arg.length === 2 && arg[0] === '-' ? shortName(options, arg[1] as string) : undefined;
    if (name !== undefined && options[name]?.type === 'string' && i + 1 < argv.length) {
      out.push(`--${name}=${argv[i + 1] as string}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

function shortName(options: Record<string, CliOption>, short: string): string | undefined {
  return Object.entries(options).find(([, option]) => option.short === short)?.[0];
}

/** Parse a subcommand's arguments; at most `maxPositionals` positionals. */
export function parseCommand<T extends Record<string, CliOption>>(argv: readonly string[], options: T, usage: string, maxPositionals: number): { values: CliValues<T>; positionals: string[] } {
  const parsed = parseCli(joinOptionValues(argv, options), options, usage, { allowPositionals: true });
  if (parsed.positionals.length > maxPositionals) {
    const extra = parsed.positionals
      .slice(maxPositionals)
      .map((p) => JSON.stringify(p))
      .join(' ');
    throw new UsageError(`unexpected argument${parsed.positionals.length - maxPositionals === 1 ? '' : 's'} ${extra}\n${usage}`);
  }
  return parsed;
}

/** The issue of `--issue N`, or of a leading positional N (the drop-in scripts' `tick-ledger.sh N --step T`). */
export function issueArgument(flag: string | undefined, positional: string | undefined, usage: string): string | undefined {
  if (flag !== undefined && positional !== undefined) {
    throw new UsageError(`the issue is given twice (--issue ${JSON.stringify(flag)} and ${JSON.stringify(positional)})\n${usage}`);
  }
  return flag ?? positional;
}

/** A required string option. */
export function required(value: string | undefined, what: string, usage: string): string {
  if (value === undefined) throw new UsageError(`missing ${what}\n${usage}`);
  return value;
}
