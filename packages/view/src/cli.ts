// `leap status` (CONTRACT sections 10 and 12). The umbrella loads this module only when it runs.
// `leap status` is imported here, not lazily: the bundler makes a chunk of each set of modules the same
// lazy imports reach, and each file costs Node a resolve, a read and a compile, so its start-up reads two
// files of the view's code instead of five. `leap report` is the package's ./report entry
// (report-cli.ts), so neither command compiles the other's code.
import { statusMain } from './status-cli.js';
import type { Subcommand } from '@leap/core';

/** `leap status [--watch] [--json]`. */
export const statusCommand: Subcommand = statusMain;
