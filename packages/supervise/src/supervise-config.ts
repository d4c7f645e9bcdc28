// Everything a supervisor reads from its environment, checked before anything is launched.
import { readDurationVar, readRunContext, type RunContext } from '@leap/core';

/** Default grace between SIGTERM and SIGKILL (VERI_KILL_AFTER). */
export const DEFAULT_KILL_AFTER_MS = 5000;

export interface SuperviseConfig {
  context: RunContext;
  /** Wall-clock limit in ms; 0 is none. */
  timeoutMs: number;
  /** Grace between SIGTERM and SIGKILL in ms; 0 sends SIGKILL at once. */
  killAfterMs: number;
  /** No output and no CPU progress for this long ends the leaf (killed-stuck); 0 is off. */
  idleMs: number;
}

/** Read VERI_ISSUE, VERI_STEP, VERI_TIMEOUT (or the timeout file), VERI_KILL_AFTER, VERI_IDLE_TIMEOUT. */
export function readSuperviseConfig(stateDir: string, env: NodeJS.ProcessEnv): SuperviseConfig {
  const context = readRunContext(stateDir, env);
  return {
    context,
    timeoutMs: context.timeoutMs,
    killAfterMs: readDurationVar(env, 'VERI_KILL_AFTER', DEFAULT_KILL_AFTER_MS),
    idleMs: readDurationVar(env, 'VERI_IDLE_TIMEOUT', 0),
  };
}
