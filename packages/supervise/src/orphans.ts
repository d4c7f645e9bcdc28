// A killed program's in-process supervisors die with it, not their leaves (nor a bwrap not yet tied to its parent).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readFileIfExists, orElse } from '@leap/core';
import { readPidFile } from './leaf-files.js';
import { sleep } from './long-timer.js';
import { environHasKey, isGone, readProc, scanProcesses } from './proc-scan.js';

export type OrphanLeaf = { name: string; leafPid: number | null; marker: string | null };

/** Leaves whose NAME.pid names `deadPid` and that have no exit file (the conductor's own pid file aside). */
export function findOrphanLeaves(stateDir: string, deadPid: number): OrphanLeaf[] {
  const entries = orElse(() => readdirSync(stateDir), []);
  const found: OrphanLeaf[] = [];
  for (const entry of entries) {
    if (!entry.endsWith('.pid') || entry.includes('conductor')) continue;
    const name = entry.slice(0, -4);
    if (readFileIfExists(join(stateDir, `${name}.exit`)) !== null) continue;
    const record = readPidFile(join(stateDir, entry));
    if (record === null || record.pid !== deadPid) continue;
    const { leaf, run } = record;
    const leafPid = leaf !== undefined && Number.isInteger(leaf) && leaf > 1 ? leaf : null;
    found.push({ name, leafPid, marker: run === undefined ? null : `LEAP_LEAF_${run}` });
  }
  return found;
}

/** SIGKILL every process of the orphans' sessions or carrying their markers, until none is left (at most `capMs`). */
export async function endOrphanLeaves(orphans: readonly OrphanLeaf[], capMs = 5000): Promise<number> {
  if (orphans.length === 0) return 0;
  const sessions = new Set(orphans.map((o) => o.leafPid).filter((p): p is number => p !== null));
  const markers = orphans.map((o) => o.marker).filter((m): m is string => m !== null);
  const killed = new Set<number>();
  const until = Date.now() + capMs;
  for (;;) {
    const alive = scanProcesses().filter(
      (p) =>
        p.pid !== process.pid && !isGone(p) && (sessions.has(p.sid) || markers.some((m) => environHasKey(p.pid, m))),
    );
    if (alive.length === 0 || Date.now() > until) return killed.size;
    for (const p of alive) if (orElse(() => process.kill(p.pid, 'SIGKILL'), false)) killed.add(p.pid);
    await sleep(20);
  }
}

export type OrphanSweep = { leaves: string[]; killed: number };

/** The lifeline's sweep and `leap-stop orphans`; null while `deadPid` lives (its leaves are its own). */
export async function sweepOrphansOf(deadPid: number, stateDirs: readonly string[]): Promise<OrphanSweep | null> {
  const holder = readProc(deadPid);
  if (holder !== null && !isGone(holder)) return null;
  const orphans = stateDirs.flatMap((dir) => findOrphanLeaves(dir, deadPid));
  return { leaves: orphans.map((o) => o.name), killed: await endOrphanLeaves(orphans) };
}
