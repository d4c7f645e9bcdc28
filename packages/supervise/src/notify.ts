// `--notify CMD` (CONTRACT section 14): a supervised, unsandboxed leaf; its failure is said, never fatal to the run.
import { join } from 'node:path';
import { UsageError, resolveStateDir, showValue, statePaths } from '@leap/core';
import { supervise } from './supervise.js';

export type NotifyEvent = 'done' | 'bail' | 'stop' | 'cost-budget';

/** Split on spaces: no shell, no quoting (the contract's rule; put a script in it for more). */
export function splitNotify(command: string, option = '--notify'): string[] {
  const argv = command.split(' ').filter((word) => word !== '');
  if (argv.length === 0)
    throw new UsageError(
      `Expected ${option} to be a command line (split on spaces into an argv, no shell), got ${showValue(command)}`,
    );
  return argv;
}

export type NotifyOutcome = { leaf: string; problem: string | null };

/** How long a notify command may run (VERI_TIMEOUT's form): a webhook that hangs must not hold the run's end. */
const NOTIFY_TIMEOUT = '60';

/** `payload` goes as JSON on stdin; a non-zero exit, a missing executable or a passed time limit is a `problem`. */
export async function runNotify(
  argv: readonly string[],
  event: NotifyEvent,
  payload: Record<string, unknown>,
  place: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<NotifyOutcome> {
  const paths = statePaths(resolveStateDir(place.env, place.cwd));
  const leaf = `notify-${event}-${Date.now()}`;
  const [command, ...args] = argv as [string, ...string[]];
  const env = { ...place.env, VERI_TIMEOUT: NOTIFY_TIMEOUT, VERI_IDLE_TIMEOUT: '0' };
  const input = `${JSON.stringify({ ...payload, event })}\n`;
  const err = join(paths.dir, `${leaf}.err`);
  try {
    const io = { input, stdoutFile: join(paths.dir, `${leaf}.out`), stderrFile: err };
    const result = await supervise({ name: leaf, command, args, cwd: place.cwd, env, io });
    if (result.code === 0) return { leaf, problem: null };
    const why = result.error ?? `${result.status}${result.leafCode === null ? '' : ` (exit ${result.leafCode})`}`;
    return { leaf, problem: `the notify command ${showValue(command)} failed: ${why}; its output is in ${err}` };
  } catch (error) {
    return { leaf, problem: `the notify command ${showValue(command)} could not run: ${(error as Error).message}` };
  }
}
