// `leap slice ...` and `leap ball ...` (CONTRACT sections 7 and 12): each action's code loads only when it runs.
import { UsageError, type Subcommand } from '@leap/core';

type Loader = () => Promise<Subcommand>;

const SLICE_ACTIONS: Record<string, { summary: string; load: Loader }> = {
  new: { summary: 'write a skeleton slice file from the command line', load: async () => (await import('./cli/new.js')).newCommand },
  validate: { summary: 'check a slice file against its schema and every rule, all violations at once', load: async () => (await import('./cli/validate.js')).validateCommand },
  plan: { summary: 'the waves a slice runs in', load: async () => (await import('./cli/plan.js')).planCommand },
  run: { summary: 'build, prove, judge and merge every ball', load: async () => (await import('./cli/run.js')).runCommand },
  status: { summary: 'each ball\'s state and last receipt', load: async () => (await import('./cli/status.js')).statusCommand },
  clean: { summary: 'remove the slice\'s worktrees and branches (records stay)', load: async () => (await import('./cli/clean.js')).cleanCommand },
};

const BALL_ACTIONS: Record<string, { summary: string; load: Loader }> = {
  hash: { summary: 'scope entries with their hashes, for cutting a ball', load: async () => (await import('./cli/hash.js')).hashCommand },
  check: { summary: 'the file-map check of one ball, with its receipt and why', load: async () => (await import('./cli/check.js')).checkCommand },
};

function dispatcher(prog: string, actions: Record<string, { summary: string; load: Loader }>): Subcommand {
  const usage = () => {
    const width = Math.max(...Object.keys(actions).map((n) => n.length));
    return [`Usage: ${prog} ACTION [ARGS...]`, '', 'Actions:', ...Object.entries(actions).map(([n, a]) => `  ${n.padEnd(width)}  ${a.summary}`), '', `${prog} ACTION --help tells more.`].join('\n');
  };
  return async (argv, io) => {
    const [action, ...rest] = argv;
    if (action === '--help' || action === '-h' || action === 'help') {
      io.stdout(`${usage()}\n`);
      return 0;
    }
    if (action === undefined) throw new UsageError(`expected an action\n${usage()}`);
    const entry = Object.hasOwn(actions, action) ? actions[action] : undefined;
    if (entry === undefined) throw new UsageError(`unknown action ${JSON.stringify(action)}: expected one of ${Object.keys(actions).join(', ')} (${prog} --help)`);
    return (await entry.load())(rest, io);
  };
}

/** `leap slice ACTION ...`. */
export const sliceCommand: Subcommand = dispatcher('leap slice', SLICE_ACTIONS);
/** `leap ball ACTION ...`. */
export const ballCommand: Subcommand = dispatcher('leap ball', BALL_ACTIONS);
