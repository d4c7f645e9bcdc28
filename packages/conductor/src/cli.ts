// `leap tdd ...` and `leap demo` (CONTRACT sections 9 and 12): each loads its code only when it runs.
import type { Subcommand } from '@leap/core';

export const tddCommand: Subcommand = async (argv, io) => (await import('./tdd-cli.js')).tddMain(argv, io);
export const demoCommand: Subcommand = async (argv, io) => (await import('./demo/demo-cli.js')).demoMain(argv, io);
