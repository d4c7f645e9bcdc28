export { createScriptedAgent, scriptedAgentBin } from './scripted-agent.js';
export type { ScriptedAgentConfig } from './scripted-agent.js';
export { checkScript, readScript } from './script-file.js';
export type { Script, ScriptEdit, ScriptMove } from './script-file.js';
export { answerText, applyEdits, claimNextMove, commitAll, movePromptFile, scriptStateDir } from './replay-move.js';
export { replayNextMove } from './replay.js';
export type { ReplayResult } from './replay.js';
export { parsePlainText } from './plain-answer.js';
