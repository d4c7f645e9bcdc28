// The subcommands of `leap` (CONTRACT section 12): each import() is a chunk, loaded only when its command runs.
import { importInstalled, type Subcommand } from '@leap/core';

export interface CommandEntry {
  summary: string;
  load: () => Promise<Subcommand>;
}

const SUMMARIES = {
  slice: 'a LEAP slice: new, validate, plan, run, status, clean',
  ball: 'one ball of a slice: hash its scope, check its file map',
  tdd: 'drive one issue test-first with agents: run, status, stop',
  demo: 'make a sample project and drive its issue end to end with scripted agents',
  status: 'where the runs of this repository stand, and what they cost',
  report: 'one self-contained HTML report of the runs of this repository',
  serve: 'the report as a live page on 127.0.0.1, behind a token',
  init: 'set up this repository: leap.config.json, an agents file, a first issue, the skills',
  mcp: 'a Model Context Protocol server on stdio: agent clients drive tdd runs and slices',
  worker: 'build LEAP balls taken from a BullMQ queue on Redis (the bullmq runner, installed on its own)',
  workers: 'the leap workers on the queue: their rounds in hand and heartbeats; drain, pause, resume, forget',
};

// `leap worker(s)` come from the BullMQ runner, a package of its own: a name in a variable keeps it out of the bundle.
const RUNNER_CLI = '@leap/runner-bullmq/cli';
type RunnerCli = { workerCommand: Subcommand; workersCommand: Subcommand };
const runner = async (what: string) => (await importInstalled(RUNNER_CLI, process.cwd(), what)) as RunnerCli;

const LOADS: Record<keyof typeof SUMMARIES, CommandEntry['load']> = {
  slice: async () => (await import('@leap/slice/cli')).sliceCommand,
  ball: async () => (await import('@leap/slice/cli')).ballCommand,
  tdd: async () => (await import('@leap/conductor/cli')).tddCommand,
  demo: async () => (await import('@leap/conductor/cli')).demoCommand,
  status: async () => (await import('@leap/view/cli')).statusCommand,
  // Its own entry: `leap report` never loads the code of `leap status` (the view's ./cli).
  report: async () => (await import('@leap/view/report')).reportMain,
  serve: async () => (await import('@leap/view/serve')).serveMain,
  init: async () => (await import('./init-cli.js')).initMain,
  mcp: async () => (await import('./mcp-cli.js')).mcpMain,
  worker: async () => (await runner('leap worker')).workerCommand,
  workers: async () => (await runner('leap workers')).workersCommand,
};

export const COMMANDS: Record<string, CommandEntry> = Object.fromEntries(
  Object.entries(SUMMARIES).map(([name, summary]) => [name, { summary, load: LOADS[name as keyof typeof LOADS] }]),
);
