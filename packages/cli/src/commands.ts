// The subcommands of `leap` (CONTRACT section 12): each import() is a chunk, loaded only when its command runs.
import type { Subcommand } from '@leap/core';

export interface CommandEntry {
  summary: string;
  load: () => Promise<Subcommand>;
}

export const COMMANDS: Record<string, CommandEntry> = {
  slice: {
    summary: 'a LEAP slice: new, validate, plan, run, status, clean',
    load: async () => (await import('@leap/slice/cli')).sliceCommand,
  },
  ball: {
    summary: 'one ball of a slice: hash its scope, check its file map',
    load: async () => (await import('@leap/slice/cli')).ballCommand,
  },
  tdd: {
    summary: 'drive one issue test-first with agents: run, status, stop',
    load: async () => (await import('@leap/conductor/cli')).tddCommand,
  },
  demo: {
    summary: 'make a sample project and drive its issue end to end with scripted agents',
    load: async () => (await import('@leap/conductor/cli')).demoCommand,
  },
  status: {
    summary: 'where the runs of this repository stand, and what they cost',
    load: async () => (await import('@leap/view/cli')).statusCommand,
  },
  // Its own entry: `leap report` never loads the code of `leap status` (the view's ./cli).
  report: {
    summary: 'one self-contained HTML report of the runs of this repository',
    load: async () => (await import('@leap/view/report')).reportMain,
  },
  serve: {
    summary: 'the report as a live page on 127.0.0.1, behind a token',
    load: async () => (await import('@leap/view/serve')).serveMain,
  },
  init: {
    summary: 'set up this repository: leap.config.json, an agents file, a first issue, the skills',
    load: async () => (await import('./init-cli.js')).initMain,
  },
  mcp: {
    summary: 'a Model Context Protocol server on stdio: agent clients drive tdd runs and slices',
    load: async () => (await import('./mcp-cli.js')).mcpMain,
  },
  worker: {
    summary: 'build LEAP balls taken from a BullMQ queue on Redis (the bullmq runner, installed on its own)',
    load: async () => (await import('./runner-cli.js')).workerMain,
  },
  workers: {
    summary: 'the leap workers on the queue: their rounds in hand and heartbeats; drain, pause, resume, forget',
    load: async () => (await import('./runner-cli.js')).workersMain,
  },
};
