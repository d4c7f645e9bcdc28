// `--notify CMD` (CONTRACT section 14): the user's, so unsandboxed; its failure is narrated, never the run's result.
import type { RunBase } from './conductor.js';
import { exitCode } from './exit-codes.js';
import type { TddRunEnd } from './types.js';

/** The event each outcome tells; a bail on the cost budget tells `cost-budget`. */
const EVENTS = { done: 'done', stopped: 'stop', bailed: 'bail' } as const;

export async function notifyEnd(run: RunBase, result: TddRunEnd): Promise<TddRunEnd> {
  const argv = run.setup.effective.notify;
  if (argv === undefined || argv.length === 0) return result;
  const event = result.bail?.cause === 'cost-budget' ? 'cost-budget' : EVENTS[result.outcome];
  const { runNotify } = await import('@leap/supervise');
  const payload = {
    issue: run.issue,
    title: run.setup.issueData.title,
    branch: run.branch,
    outcome: result.outcome,
    code: exitCode(result.outcome),
    ...(result.bail === undefined ? {} : { bail: result.bail }),
    ...(result.stoppedAt === undefined ? {} : { stopped_at: result.stoppedAt }),
    ...(result.pullRequest === undefined ? {} : { pull_request: result.pullRequest.url }),
    steps: result.steps.length,
    commits: result.commits.length,
    ms: Math.round(result.ms),
    ts: new Date().toISOString(),
  };
  const told = await runNotify(argv, event, payload, { cwd: run.setup.root, env: run.env });
  run.setup.warn(
    told.problem === null
      ? `notify: ${event} told (leaf ${told.leaf})`
      : `notify: ${told.problem} (the run's result stands)`,
  );
  return result;
}
