// The arguments of `leap slice plan|status|clean FILE [--json]`: one place for --help, --json and the one FILE.
import { parseCli, UsageError, type SubcommandIo } from '@leap/core';

/** The parsed call, or null when it asked for --help (printed). `--` ends options: a FILE named `--help` is a file. */
export function readFileCommand(argv: string[], io: SubcommandIo, usage: string) {
  const end = argv.indexOf('--');
  if (printHelp(end < 0 ? argv : argv.slice(0, end), io, usage)) return null;
  const { values, positionals } = parseCli(argv, { json: { type: 'boolean' } }, usage);
  const file = positionals[0];
  if (file === undefined || positionals.length > 1)
    throw new UsageError(`expected one slice FILE, got ${positionals.length}\n${usage}`);
  return { file, json: values.json === true };
}

export function printHelp(argv: readonly string[], io: SubcommandIo, usage: string): boolean {
  const asked = argv.includes('--help') || argv.includes('-h');
  if (asked) io.stdout(`${usage}\n`);
  return asked;
}

/** `N balls in M waves, spine S`: a slice's shape as plan and validate say it. */
export function sliceShape(slice: { balls: readonly unknown[]; spine: string }, waves: number | undefined): string {
  const count = (n: number | undefined, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${count(slice.balls.length, 'ball')} in ${count(waves, 'wave')}, spine ${slice.spine}`;
}
