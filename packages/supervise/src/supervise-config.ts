// Everything a supervisor reads from its environment, checked before anything is launched.
import { readDurationVar, readRunContext } from '@leap/core';

export const DEFAULT_KILL_AFTER_MS = 5000;

export type SuperviseConfig = ReturnType<typeof readSuperviseConfig>;

/** Read VERI_ISSUE, VERI_STEP, VERI_TIMEOUT (or the timeout file), VERI_KILL_AFTER, VERI_IDLE_TIMEOUT. */
export function readSuperviseConfig(stateDir: string, env: NodeJS.ProcessEnv) {
  const context = readRunContext(stateDir, env);
  return {
    context,
    timeoutMs: context.timeoutMs, // 0: none
    killAfterMs: readDurationVar(env, 'VERI_KILL_AFTER', DEFAULT_KILL_AFTER_MS), // 0: SIGKILL at once
    idleMs: readDurationVar(env, 'VERI_IDLE_TIMEOUT', 0), // no output and no CPU progress for this long; 0: off
  };
}
