// PLACEHOLDER until the view's builders replace it.
import { LeapError, type Subcommand } from '@leap/core';

export const statusMain: Subcommand = async () => {
  throw new LeapError('not built yet', { exitCode: 2 });
};
