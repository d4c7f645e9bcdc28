export * from './command-agent.js';
