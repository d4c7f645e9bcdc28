export * from './gemini-agent.js';
export * from './gemini-output.js';
