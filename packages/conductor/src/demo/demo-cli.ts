// PLACEHOLDER until the conductor's builders replace it.
import { LeapError, type Subcommand } from '@leap/core';

export const demoMain: Subcommand = async () => {
  throw new LeapError('not built yet', { exitCode: 2 });
};
