// While the leaf runs: follow its descendants through /proc, and notice when it stops making progress.
import { fstatSync } from 'node:fs';
import type { LeafTree } from './leaf-tree.js';
import { recentProcesses } from './proc-scan.js';
import { nowMs } from './long-timer.js';
import { orElse } from '@leap/core';

export const TRACK_INTERVAL_MS = 1000;
// Monitors of one process whose ticks fall this close together share a snapshot (see recentProcesses).
const SHARED_SNAPSHOT_MS = 20;

const outputSize = (): number =>
  [1, 2].map((fd) => orElse(() => fstatSync(fd), null)).reduce((sum, s) => sum + (s?.isFile() ? s.size : 0), 0);

export function monitorInterval(idleMs: number): number {
  return idleMs > 0 ? Math.min(TRACK_INTERVAL_MS, Math.max(25, Math.floor(idleMs / 4))) : TRACK_INTERVAL_MS;
}

/** Records escapees; with an idle limit, `onIdle` once nothing was written and no CPU used for `idleMs`. */
export function monitorTree(tree: LeafTree, idleMs: number, onIdle: () => void): () => void {
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
