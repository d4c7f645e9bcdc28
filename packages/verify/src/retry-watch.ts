// The retry watch of an agent leaf: a CLI stuck retrying an unreachable or refusing service is ended, not waited on.
import { statSync } from 'node:fs';
import { type AgentPlugin, type AgentRetry, orElse, readProcStat, readTail } from '@leap/core';
import { readPidFile } from '@leap/supervise';

const RETRY_MIN_ATTEMPTS = 3;
const RETRY_POLL_MS = 250;
const TAIL_BYTES = 256 * 1024;
type Files = Record<'out' | 'err' | 'pid', string>;
type Ended = { attempts: number; message: string; seconds: number; final: boolean };
export type RetryWatch = { stop(): void; ended: Ended | null };

// The abort has the supervisor end the leaf's tree with its own kill sequence, recording `killed-stuck`.
export function watchRetries(agent: AgentPlugin, files: Files, limitMs: number, abort: AbortController): RetryWatch {
  const watch: RetryWatch = { stop: () => {}, ended: null };
  if (agent.retrying === undefined || limitMs <= 0) return watch;
  const started = Date.now();
  let sizes = '';
  let retry: AgentRetry | null = null;
  let since = 0;
  let leafPid: number | null = null;
  const timer = setInterval(() => {
    // Not before the leaf runs: until then NAME.out may still be a previous run's.
    if (leafPid === null) {
      const pid = readPidFile(files.pid)?.leaf;
      if (pid === undefined || !isChildOfThisProcess(pid)) return;
      leafPid = pid;
    }
    const now = Date.now();
    const seen = `${sizeOf(files.out)}:${sizeOf(files.err)}`;
    if (seen !== sizes) {
      sizes = seen;
      const next = agent.retrying?.(readTail(files.out, TAIL_BYTES), readTail(files.err, TAIL_BYTES)) ?? null;
      if (next !== null && retry === null) since = now;
      retry = next;
    }
    // A final refusal (a failed login) ends the leaf at once; a passing fault only after enough tries and time.
    if (retry === null || watch.ended !== null) return;
    if (retry.final !== true && (retry.attempts < RETRY_MIN_ATTEMPTS || now - since < limitMs)) return;
    if (!isChildOfThisProcess(leafPid)) return;
    const seconds = Math.round((now - started) / 100) / 10;
    watch.ended = { attempts: retry.attempts, message: retry.message, seconds, final: retry.final === true };
    abort.abort();
  }, RETRY_POLL_MS);
  watch.stop = () => clearInterval(timer);
  return watch;
}

const isChildOfThisProcess = (pid: number) => Number(readProcStat(pid)?.[1]) === process.pid;
const sizeOf = (file: string): number => orElse(() => statSync(file).size, -1);
