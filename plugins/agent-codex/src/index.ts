export { createCodexAgent } from './codex-agent.js';
export type { CodexAgentConfig } from './codex-agent.js';
export type { CodexRetry } from './codex-events.js';
export { codexRanDry, codexRetrying, explainCodexFailure, parseCodexEvents, parseCodexUsage } from './codex-events.js';
export {
  CODEX_READINESS_SCRIPT,
  CODEX_READINESS_VAR,
  CODEX_SANDBOX_MODE_VAR,
  codexSandboxHelpersRefusal,
  codexSetupReadiness,
} from './codex-readiness.js';
