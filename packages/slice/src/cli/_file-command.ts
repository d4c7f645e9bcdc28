// The commands' arguments: --help, --json, the one FILE, and `--runner NAME` with its options (run, clean).
import { UsageError, loadRunner, parseCli, runnerNameIn, runnerUsage, type SubcommandIo } from '@leap/core';
import type { CliOption, RunnerModule } from '@leap/core';
import type { SliceRunner } from '../engine/records.js';

/** The parsed call, or null when it asked for --help (printed). `--` ends options: a FILE named `--help` is a file. */
export function readFileCommand(argv: string[], io: SubcommandIo, usage: string) {
  const end = argv.indexOf('--');
  if (printHelp(end < 0 ? argv : argv.slice(0, end), io, usage)) return null;
  const { values, positionals } = parseCli(argv, { json: { type: 'boolean' } }, usage);
  return { file: oneFile(positionals, usage), json: values.json === true };
}

export function oneFile(positionals: readonly string[], usage: string): string {
  const file = positionals[0];
  if (file === undefined || positionals.length > 1)
    throw new UsageError(`expected one slice FILE, got ${positionals.length}\n${usage}`);
  return file;
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

/** The runner argv names (null: the local one), found first, the usage with its options, and argv parsed with them. */
export async function parseWithRunner<T extends Record<string, CliOption>>(
  argv: string[],
  options: T,
  usage: string,
  cwd: string,
) {
  const name = runnerNameIn(argv);
  const runner: RunnerModule<SliceRunner> | null =
    name === undefined || name === 'local' ? null : await loadRunner<SliceRunner>(name, cwd);
  const full = runner === null ? usage : `${usage}\n${runnerUsage(runner)}`;
  for (const key of Object.keys(runner?.options ?? {}))
    if (key in options) throw new UsageError(`--runner ${name}: its option --${key} is one of the command's own`);
  try {
    const all = { ...options, ...runner?.options, runner: { type: 'string' } } as T;
    const { values, positionals } = parseCli(argv, all, full);
    const runnerValues = values as Record<string, string | boolean | undefined>;
    return { runner, usage: full, values, positionals, runnerValues };
  } catch (error) {
    // Without a runner, an option no command has is most often a runner's given without --runner.
    if (runner !== null || !(error instanceof UsageError) || !/Unknown option/.test(error.message)) throw error;
    const [first, ...rest] = error.message.split('\n');
    const after =
      "a runner's options are taken after --runner NAME (leap slice run --runner bullmq --help lists bullmq's)";
    throw new UsageError([`${first}: ${after}`, ...rest].join('\n'), { cause: error });
  }
}
