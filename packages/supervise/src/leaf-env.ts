// The environment a leaf gets (CONTRACT section 3): the caller's, plus the run's timeout and pinned revision.
import { READY_FD_VAR } from './ready-handshake.js';

export type LeafEnvOptions = { timeoutMs: number; skillCommit: string | null; marker: string; killAfterMs?: number };

/** VERI_KILL_AFTER is half our grace: a nested supervisor (leap-verify's) writes its exit file before our SIGKILL. */
export function buildLeafEnv(env: NodeJS.ProcessEnv, options: LeafEnvOptions): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  delete out[READY_FD_VAR];
  if (options.timeoutMs > 0) {
    const ms = String(Math.min(Math.ceil(options.timeoutMs), Number.MAX_SAFE_INTEGER));
    if (out.BASH_DEFAULT_TIMEOUT_MS === undefined) out.BASH_DEFAULT_TIMEOUT_MS = ms;
    if (out.BASH_MAX_TIMEOUT_MS === undefined) out.BASH_MAX_TIMEOUT_MS = ms;
  }
  if (options.skillCommit !== null) out.VERI_SKILL_COMMIT = options.skillCommit;
  if (options.killAfterMs !== undefined) out.VERI_KILL_AFTER = String(Math.floor(options.killAfterMs / 2) / 1000);
  out[options.marker] = '1';
  return out;
}
