export * from './replay-move.js';
export { replayNextMove } from './replay.js';
export * from './script-file.js';
export * from './scripted-agent.js';
