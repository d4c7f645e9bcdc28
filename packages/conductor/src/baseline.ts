// The suite on the start tree, run as ground truth's (a `suite` event, sandboxed, limited); a resume reads it back.
import { writeFileSync } from 'node:fs';
import { readEvents } from '@leap/core';
import { Bail } from './bail-causes.js';
import type { Preflighted } from './conductor.js';
import { limitsEnv, suiteLimitBail } from './launch.js';
import { watchModeNarration, watchModeOf } from './watch-mode.js';

const TAIL_LINES = 8;

export async function runBaseline(run: Preflighted, where: string): Promise<void> {
  // A watch mode seen on the command line or in the script it calls would only end at a limit: named at once.
  const watch = watchModeOf(run.root, run.testCmd);
  if (watch !== null) throw new Bail('suite-limit', watchModeNarration(run.testCmd, watch));
  const { runBaselineTwice, SuiteLimitError } = await import('@leap/verify');
  const log = run.paths.err('baseline');
  writeFileSync(log, '');
  const env = { ...run.env, VERI_TEST_CMD: run.testCmd, VERI_ISSUE: String(run.issue), ...limitsEnv(run.setup) };
  // Twice: a test that passes once and fails once is flaky, named now and never blamed on a step.
  const suite = { testCmd: run.testCmd, env, suiteLog: log, stateDir: run.paths.dir, sandbox: run.setup.sandbox };
  const { run: first, flaky } = await runBaselineTwice(suite, run.root).catch((error: unknown) => {
    throw error instanceof SuiteLimitError ? suiteLimitBail(run, error) : error;
  });
  const said = 'flaky before any change (passed once and failed once on the same tree; never blamed on a step)';
  if (flaky.length > 0) await run.say(`${said}: ${flaky.join(', ')}`);
  if (first.code === 0) return;
  // runSuite's first line names the folder it ran in; the suite's own output follows.
  const tail = first.output.split('\n').slice(1).join('\n').trim().split('\n').slice(-TAIL_LINES).join('\n');
  throw new Bail(
    'baseline-red',
    `The test suite fails before any change (\`${run.testCmd}\` exited ${first.code}), ` +
      `so a red test could not be told from a broken build. Make it pass on ${where} first. Its last lines:\n${tail}`,
  );
}

/** The trees whose suite passed with this run's test command, as the event log's `suite` events of this issue say. */
export async function passedTreesOfLog(run: Preflighted): Promise<string[]> {
  const trees = new Set<string>();
  for (const { event } of readEvents(run.paths.events)) {
    if (
      event.event === 'suite' &&
      event.code === 0 &&
      event.limit === undefined &&
      event.tree !== null &&
      event.command === run.testCmd &&
      event.issue === run.issue
    )
      trees.add(event.tree);
  }
  return [...trees];
}
