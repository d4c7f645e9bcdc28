// `leap status` and `leap report` (CONTRACT sections 10 and 12). The umbrella loads this module only when
// one of them runs. `leap status` is imported here, not lazily: the bundler makes a chunk of each set of
// modules the same lazy imports reach, and each file costs Node a resolve, a read and a compile, so its
// start-up reads two files of the view's code instead of five. `leap report` loads its renderer lazily, so
// `leap status` never compiles it.
import { statusMain } from './status-cli.js';
import type { Subcommand } from '@leap/core';

/** `leap status [--watch] [--json]`. */
export const statusCommand: Subcommand = statusMain;
/** `leap report [--out FILE]`. */
export const reportCommand: Subcommand = async (argv, io) => (await import('./report-cli.js')).reportMain(argv, io);
