// PLACEHOLDER until the engine's builders replace it.
import { LeapError, type Subcommand } from '@leap/core';

export const hashCommand: Subcommand = async () => {
  throw new LeapError('not built yet', { exitCode: 2 });
};
