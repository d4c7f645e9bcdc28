// `leap status`, imported eagerly: two files to start, not five (docs/decisions/lazy-loading.md).
export { statusMain as statusCommand } from './status-cli.js';
