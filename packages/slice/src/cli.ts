// `leap slice ...` and `leap ball ...` (CONTRACT sections 7 and 12): each action's code loads only when it runs.
import { dispatcher, type Action, type Subcommand } from '@leap/core';

const act = (summary: string, load: Action['load']): Action => ({ summary, load });

const SLICE_ACTIONS: Record<string, Action> = {
  new: act('write a skeleton slice file from the command line', async () => (await import('./cli/new.js')).newCommand),
  validate: act(
    'check a slice file against its schema and every rule, all violations at once',
    async () => (await import('./cli/validate.js')).validateCommand,
  ),
  plan: act('the waves a slice runs in', async () => (await import('./cli/plan.js')).planCommand),
  run: act('build, prove, judge and merge every ball', async () => (await import('./cli/run.js')).runCommand),
  status: act("each ball's state and last receipt", async () => (await import('./cli/status.js')).statusCommand),
  clean: act(
    "remove the slice's worktrees and branches (records stay)",
    async () => (await import('./cli/clean.js')).cleanCommand,
  ),
};

const BALL_ACTIONS: Record<string, Action> = {
  hash: act(
    'scope entries with their hashes, for cutting a ball',
    async () => (await import('./cli/hash.js')).hashCommand,
  ),
  check: act(
    'the file-map check of one ball, with its receipt and why',
    async () => (await import('./cli/check.js')).checkCommand,
  ),
};

export const sliceCommand: Subcommand = dispatcher('leap slice', SLICE_ACTIONS);
export const ballCommand: Subcommand = dispatcher('leap ball', BALL_ACTIONS);
