// @leap/agent-command: any command line as a LEAP agent.
export { createCommandAgent, parsePlainAnswer } from './command-agent.js';
export type { CommandAgentConfig } from './command-agent.js';
