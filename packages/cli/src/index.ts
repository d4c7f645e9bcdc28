export { COMMANDS } from './commands.js';
export type { CommandEntry } from './commands.js';
export { main, mainUsage } from './main.js';
