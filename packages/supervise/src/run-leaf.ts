// Watch a started leaf until it and everything it started are gone, ending it when a limit or a request says so.
import type { ChildProcess } from 'node:child_process';
import { fstatSync } from 'node:fs';
import { readStopRequest, orElse } from '@leap/core';
import { LeafTree, killTree, type KillOutcome, type Leader } from './leaf-tree.js';
import { nowMs, setLongTimeout, sleep } from './long-timer.js';
import { recentProcesses } from './proc-scan.js';

type KillReason = 'timeout' | 'stuck' | 'stop' | 'signal';

export interface RunLeafOptions {
  child: ChildProcess;
  pid: number;
  /** A start time no descendant of the leaf can precede (the supervisor's own, in clock ticks). */
  notBefore: number;
  marker: string;
  /** Where a `now` stop request is read; null: none ends it (a suite run, whose caller reads stops itself). */
  stopFile: string | null;
  timeoutMs: number;
  killAfterMs: number;
  idleMs: number;
  /** The leaf is bwrap: it takes SIGKILL only (see Leader.onlyKill). */
  sandboxed?: boolean;
}

export type RunningLeaf = ReturnType<typeof runLeaf>;

const NO_KILL: KillOutcome = { leftovers: 0, escaped: 0, unkillable: [], escalated: false };
const STOP_POLL_MS = 500;
const SANDBOX_SETTLE_MS = 50;

export function runLeaf(options: RunLeafOptions) {
  const { child } = options;
  const tree = new LeafTree(options.pid, options.notBefore, options.marker);
  const leader: Leader = {
    pid: options.pid,
    onlyKill: options.sandboxed === true,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    kill: (signal) => child.kill(signal),
  };
  let reason: KillReason | null = null;
  let killing: Promise<KillOutcome> | null = null;
  // The leaf may be unkillable (uninterruptible sleep): then the kill sequence gives up and so do we.
  let giveUp: (value: null) => void = () => {};
  const gaveUp = new Promise<null>((resolve) => {
    giveUp = resolve;
  });
  const startKill = (): Promise<KillOutcome> => {
    if (killing === null) {
      killing = killTree(tree, leader, { graceMs: options.killAfterMs });
      killing.then((k) => k.unkillable.length > 0 && giveUp(null)).catch(() => giveUp(null));
    }
    return killing;
  };
  const end = (why: KillReason): void => {
    if (leader.exited()) return;
    reason ??= why;
    void startKill();
  };
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });

  const cancelTimeout = options.timeoutMs > 0 ? setLongTimeout(() => end('timeout'), options.timeoutMs) : () => {};
  const stopMonitor = monitorTree(tree, options.idleMs, () => end('stuck'));
  const { stopFile } = options;
  // Polled, not watched: a `now` stop is honoured within STOP_POLL_MS, and no inotify instance is spent.
  const stopPoll =
    stopFile === null
      ? undefined
      : setInterval(() => {
          const request = readStopRequest(stopFile);
          if (request.kind === 'requested' && request.mode === 'now') end('stop');
        }, STOP_POLL_MS);
  stopPoll?.unref();

  const outcome = (async () => {
    const ended = await Promise.race([exited, gaveUp]);
    cancelTimeout();
    stopMonitor();
    clearInterval(stopPoll);
    // The leader is gone: whatever it left behind goes too (the same sequence, grace included).
    if (killing === null) {
      const count = (): number => {
        const found = orElse(() => tree.live(), null); // null: /proc could not be read, the kill sequence looks again
        return found === null ? -1 : found.members.length + found.escaped.length;
      };
      let left = count();
      // bwrap exits before its pid 1, which takes the sandbox's processes with it: give them a moment to go.
      for (let waited = 0; options.sandboxed === true && left > 0 && waited < SANDBOX_SETTLE_MS; waited += 2) {
        await sleep(2);
        left = count();
      }
      if (left !== 0) void startKill();
    }
    const kill = killing === null ? NO_KILL : await killing;
    // `leafCode` is null when a signal ended the leaf (or it never ended); `reason`, when the supervisor ended it.
    return { leafCode: ended?.code ?? null, signal: ended?.signal ?? null, reason, kill };
  })();
  return { outcome, end };
}

// While the leaf runs: follow its descendants through /proc, and notice when it stops making progress.
export const TRACK_INTERVAL_MS = 1000;
// Monitors of one process whose ticks fall this close together share a snapshot (see recentProcesses).
const SHARED_SNAPSHOT_MS = 20;

const outputSize = (): number =>
  [1, 2].map((fd) => orElse(() => fstatSync(fd), null)).reduce((sum, s) => sum + (s?.isFile() ? s.size : 0), 0);

export function monitorInterval(idleMs: number): number {
  return idleMs > 0 ? Math.min(TRACK_INTERVAL_MS, Math.max(25, Math.floor(idleMs / 4))) : TRACK_INTERVAL_MS;
}

/** Records escapees; with an idle limit, `onIdle` once nothing was written and no CPU used for `idleMs`. */
function monitorTree(tree: LeafTree, idleMs: number, onIdle: () => void): () => void {
  let last = '';
  let lastChange = nowMs();
  const timer = setInterval(() => {
    const procs = orElse(() => recentProcesses(SHARED_SNAPSHOT_MS), null);
    if (procs === null) return; // A failed look (EMFILE, say) is retried at the next tick.
    if (idleMs <= 0) return tree.observe(procs);
    const progress = `${outputSize()}:${tree.progress(procs)}`;
    const now = nowMs();
    if (progress !== last) {
      last = progress;
      lastChange = now;
    } else if (now - lastChange >= idleMs) {
      clearInterval(timer);
      onIdle();
    }
  }, monitorInterval(idleMs));
  timer.unref();
  return () => clearInterval(timer);
}
