// `leap worker` (CONTRACT sections 11 and 12). PLACEHOLDER until the runner's builder replaces it.
import { LeapError, type Subcommand } from '@leap/core';

/** `leap worker --redis URL --repo GIT_URL [--jobs N] [--dir DIR]`. */
export const workerCommand: Subcommand = async () => {
  throw new LeapError('not built yet', { exitCode: 2 });
};
