// Argument handling shared by the bins: options whose value is data, taken verbatim.
import { UsageError } from '@leap/core';

/** Before strict parsing, so a value like a step title starting with "-" stays one argv element; stops at `--`. */
export function takeVerbatim(
  argv: readonly string[],
  names: readonly string[],
  usage: string,
): { rest: string[]; values: Map<string, string[]> } {
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
    let value: string;
    if (eq !== -1) {
      value = arg.slice(eq + 1);
    } else {
      if (i + 1 >= argv.length) throw new UsageError(`option --${name} needs a value\n${usage}`);
      value = argv[++i] as string;
    }
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  return { rest, values };
}

export function lastValue(values: Map<string, string[]>, name: string): string | undefined {
  return values.get(name)?.at(-1);
}

/** `--sandbox on|off` as given (absent: undefined, the command's default); any other value is a UsageError. */
export function sandboxFlag(value: string | undefined): 'on' | 'off' | undefined {
  if (value === undefined || value === 'on' || value === 'off') return value;
  throw new UsageError(`--sandbox must be on or off, got ${JSON.stringify(value)}`);
}
