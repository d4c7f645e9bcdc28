// `--runner NAME` (run, clean): the runner is found by name first, then one strict parse of its options and ours.
import { UsageError, loadRunner, parseCli, runnerNameIn, runnerUsage } from '@leap/core';
import type { CliOption, RunnerModule } from '@leap/core';
import type { SliceRunner } from '../engine/round-types.js';

/** The runner argv names (null: the local one), the usage with its options, and argv parsed with them. */
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
