// Argument handling shared by the bins: options whose value is data, taken verbatim.
import { UsageError } from '@leap/core';

/** Before strict parsing, so a value like a step title starting with "-" stays one argv element; stops at `--`. */
export function takeVerbatim(argv: readonly string[], names: readonly string[], usage: string) {
  const rest: string[] = [];
  const values = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') ? arg.slice(2, eq === -1 ? undefined : eq) : '';
    if (!names.includes(name)) {
      rest.push(arg);
      continue;
    }
    if (eq === -1 && i + 1 >= argv.length) throw new UsageError(`option --${name} needs a value\n${usage}`);
    const value = eq === -1 ? (argv[++i] as string) : arg.slice(eq + 1);
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  return { rest, values };
}

export function lastValue(values: Map<string, string[]>, name: string): string | undefined {
  return values.get(name)?.at(-1);
}

export function sandboxFlag(value: string | undefined): 'on' | 'off' | undefined {
  if (value === undefined || value === 'on' || value === 'off') return value;
  throw new UsageError(`--sandbox must be on or off, got ${JSON.stringify(value)}`);
}
