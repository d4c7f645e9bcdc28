// `leap status`, imported eagerly: two files to start, not five (docs/decisions/lazy-loading.md).
import { statusMain } from './status-cli.js';
import type { Subcommand } from '@leap/core';

export const statusCommand: Subcommand = statusMain;
