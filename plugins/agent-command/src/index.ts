export { createCommandAgent, parsePlainAnswer } from './command-agent.js';
export type { CommandAgentConfig } from './command-agent.js';
