// --notify (CONTRACT section 14): supervised, unsandboxed; a failure is said, never the run's result.
import { sliceExitCode } from '../exit-code.js';
import type { RunSummary } from './run-slice.js';

/** Tell `argv` how the slice run ended; `overBudget`: the run's cost meter passed --max-cost. */
export async function notifySliceEnd(
  argv: readonly string[] | undefined,
  summary: RunSummary,
  overBudget: boolean,
  place: { cwd: string; env: NodeJS.ProcessEnv; say: (line: string) => void },
): Promise<void> {
  if (argv === undefined || argv.length === 0) return;
  const event =
    summary.receipt === 1
      ? 'done'
      : summary.stopped !== null && !overBudget
        ? 'stop'
        : overBudget
          ? 'cost-budget'
          : 'bail';
  const { runNotify } = await import('@leap/supervise');
  const payload = {
    slice: summary.slice,
    spine: summary.spine,
    receipt: summary.receipt,
    code: sliceExitCode(summary.receipt),
    stopped: summary.stopped,
    balls: summary.balls.map((b) => ({ id: b.id, receipt: b.receipt, reason: b.reason })),
    spent_usd: summary.spent.usd,
    ms: summary.wallMs,
    ts: new Date().toISOString(),
  };
  const told = await runNotify(argv, event, payload, place);
  place.say(
    told.problem === null
      ? `notify: ${event} told (leaf ${told.leaf})`
      : `notify: ${told.problem} (the run's result stands)`,
  );
}
