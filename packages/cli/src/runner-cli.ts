// `leap worker(s)` come from the BullMQ runner, a package of its own: a name in a variable keeps it out of the bundle.
import { importInstalled, type Subcommand } from '@leap/core';

const RUNNER_CLI = '@leap/runner-bullmq/cli';

type RunnerCli = { workerCommand: Subcommand; workersCommand: Subcommand };
const runnerCli = async (what: string) => (await importInstalled(RUNNER_CLI, process.cwd(), what)) as RunnerCli;

export const workerMain: Subcommand = async (argv, io) => (await runnerCli('leap worker')).workerCommand(argv, io);
export const workersMain: Subcommand = async (argv, io) => (await runnerCli('leap workers')).workersCommand(argv, io);
