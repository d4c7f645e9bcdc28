export * from './claude-agent.js';
export * from './claude-output.js';
