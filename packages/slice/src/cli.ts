// `leap slice ...` and `leap ball ...` (CONTRACT sections 7 and 12): each action's code loads only when it runs.
import { dispatcher, type Action, type Subcommand } from '@leap/core';

const SLICE_ACTIONS: Record<string, Action> = {
  new: {
    summary: 'write a skeleton slice file from the command line',
    load: async () => (await import('./cli/new.js')).newCommand,
  },
  validate: {
    summary: 'check a slice file against its schema and every rule, all violations at once',
    load: async () => (await import('./cli/validate.js')).validateCommand,
  },
  plan: { summary: 'the waves a slice runs in', load: async () => (await import('./cli/plan.js')).planCommand },
  run: {
    summary: 'build, prove, judge and merge every ball',
    load: async () => (await import('./cli/run.js')).runCommand,
  },
  status: {
    summary: "each ball's state and last receipt",
    load: async () => (await import('./cli/status.js')).statusCommand,
  },
  clean: {
    summary: "remove the slice's worktrees and branches (records stay)",
    load: async () => (await import('./cli/clean.js')).cleanCommand,
  },
};

const BALL_ACTIONS: Record<string, Action> = {
  hash: {
    summary: 'scope entries with their hashes, for cutting a ball',
    load: async () => (await import('./cli/hash.js')).hashCommand,
  },
  check: {
    summary: 'the file-map check of one ball, with its receipt and why',
    load: async () => (await import('./cli/check.js')).checkCommand,
  },
};

export const sliceCommand: Subcommand = dispatcher('leap slice', SLICE_ACTIONS);
export const ballCommand: Subcommand = dispatcher('leap ball', BALL_ACTIONS);
