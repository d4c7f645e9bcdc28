// The baseline: the project's suite on the tree the run starts from, before the branch is made. It is a suite
// run like ground truth's and goes through the same owner (leap-verify's runSuite), so it is recorded as a
// `suite` event with phase `baseline`, sandboxed as they are, a writer of the tree (CONTRACT section 13), and held
// to the run's time and idle limits (a suite-limit bail); its output goes to baseline.err in the state folder.
// A resumed run reads the trees that passed from those events, so it runs none of them again either.
import { readFileSync, writeFileSync } from 'node:fs';
import { Bail } from './bail-causes.js';
import type { Preflighted } from './conductor.js';
import { limitsEnv, suiteLimitBail } from './launch.js';
import { watchModeNarration, watchModeOf } from './watch-mode.js';

/** The lines of a failing baseline's output the bail quotes. */
const TAIL_LINES = 8;

/** Run the suite on the work tree as it is; a failure is the baseline-red bail, quoting the output's last lines. */
export async function runBaseline(run: Preflighted, where: string): Promise<void> {
  // A watch mode seen on the command line or in the script it calls would only end at a limit: named at once.
  const watch = watchModeOf(run.root, run.testCmd);
  if (watch !== null) throw new Bail('suite-limit', watchModeNarration(run.testCmd, watch));
  const { runSuite, SuiteLimitError } = await import('@leap/verify');
  const log = run.paths.err('baseline');
  writeFileSync(log, '');
  const env = { ...run.env, VERI_TEST_CMD: run.testCmd, VERI_ISSUE: String(run.issue), ...limitsEnv(run.setup) };
  let code: number;
  try {
    code = await runSuite({ testCmd: run.testCmd, env, suiteLog: log, stateDir: run.paths.dir, phase: 'baseline', sandbox: run.setup.sandbox }, run.root);
  } catch (error) {
    throw error instanceof SuiteLimitError ? suiteLimitBail(run, error) : error;
  }
  if (code === 0) return;
  // runSuite's first line names the folder it ran in; the suite's own output follows.
  const tail = readFileSync(log, 'utf8').split('\n').slice(1).join('\n').trim().split('\n').slice(-TAIL_LINES).join('\n');
  throw new Bail(
    'baseline-red',
    `The test suite fails before any change (\`${run.testCmd}\` exited ${code}), so a red test could not be told from a broken build. Make it pass on ${where} first. Its last lines:\n${tail}`,
  );
}

/** The trees whose suite passed with this run's test command, as the event log's `suite` events of this issue say. */
export async function passedTreesOfLog(run: Preflighted): Promise<string[]> {
  // The event schemas (zod) are loaded only by a resumed run: a first start needs none.
  const { readEvents } = await import('@leap/core/schemas');
  const trees = new Set<string>();
  for (const { event } of readEvents(run.paths.events)) {
    if (event.event === 'suite' && event.code === 0 && event.limit === undefined && event.tree !== null && event.command === run.testCmd && event.issue === run.issue) trees.add(event.tree);
  }
  return [...trees];
}
