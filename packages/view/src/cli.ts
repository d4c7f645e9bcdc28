// `leap status` and `leap report` (CONTRACT sections 10 and 12): each loads its code only when it runs.
import type { Subcommand } from '@leap/core';

/** `leap status [--watch] [--json]`. */
export const statusCommand: Subcommand = async (argv, io) => (await import('./status-cli.js')).statusMain(argv, io);
/** `leap report [--out FILE]`. */
export const reportCommand: Subcommand = async (argv, io) => (await import('./report-cli.js')).reportMain(argv, io);
