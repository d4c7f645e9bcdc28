// However this process dies, its `sh` lifeline runs `leap-stop orphans PID DIR...`, which ends the leaves it left:
// a killed program's in-process supervisors die with it, not their leaves (docs/decisions/lifeline.md).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { orElse, readFileIfExists } from '@leap/core';
import { readPidFile } from './leaf-files.js';
import { sleep } from './long-timer.js';
import { environHasKey, isGone, readProc, scanProcesses } from './proc-scan.js';

export type OrphanLeaf = { name: string; leafPid: number | null; marker: string | null };
export type OrphanSweep = { leaves: string[]; killed: number };

let line: ChildProcess | null = null;
const armed = new Set<string>();
/** Supervisions of this process under way (armed and not yet released). */
let running = 0;

export const packageRoot = () => dirname(createRequire(import.meta.url).resolve('@leap/supervise/package.json'));

/** The `leap-stop` bin of this package, or null where it cannot be found (not built): then no lifeline. */
function leapStopBin(): string | null {
  const root = orElse(packageRoot, null);
  if (root === null || !existsSync(join(root, 'dist', 'bin', 'leap-stop.cjs'))) return null;
  const bin = join(root, 'bin', 'leap-stop.cjs');
  return existsSync(bin) ? bin : null;
}

/** Call before the leaf starts, the returned release once its exit file is written; best effort (resume sweeps too). */
export function armLifeline(stateDir: string): () => void {
  running++;
  let released = false;
  const release = (): void => {
    if (!released) running--;
    released = true;
  };
  if (line === null) {
    const bin = leapStopBin();
    if (bin === null) return release;
    // `dirs=$(cat)` waits for the pipe's end; the folders written to it, one JSON string a line, go to --lines.
    const script = 'dirs=$(cat); exec "$@" --lines "$dirs"';
    const argv = ['-c', script, 'leap-lifeline', process.execPath, bin, 'orphans', String(process.pid)];
    const child = spawn('/bin/sh', argv, { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', () => {
      // No lifeline after all: the next leaf tries again, and hands the new one every folder, not only its own.
      line = null;
      armed.clear();
    });
    child.unref();
    (child.stdin as Writable & { unref?: () => void }).unref?.();
    (child.stdin as Writable).on('error', () => {});
    process.once('exit', () => {
      // No leaf running: the lifeline goes without running anything; else the pipe's end sweeps the leaves.
      if (running === 0 && child.pid !== undefined) {
        orElse(() => process.kill(-(child.pid as number), 'SIGKILL'), false);
      }
    });
    line = child;
  }
  if (!armed.has(stateDir)) {
    armed.add(stateDir);
    (line.stdin as Writable).write(`${JSON.stringify(stateDir)}\n`);
  }
  return release;
}

/** Leaves whose NAME.pid names `deadPid` and that have no exit file (the conductor's own pid file aside). */
export function findOrphanLeaves(stateDir: string, deadPid: number): OrphanLeaf[] {
  return orElse(() => readdirSync(stateDir), []).flatMap((entry) => {
    const name = entry.slice(0, -4);
    if (!entry.endsWith('.pid') || entry.includes('conductor')) return [];
    if (readFileIfExists(join(stateDir, `${name}.exit`)) !== null) return [];
    const record = readPidFile(join(stateDir, entry));
    if (record === null || record.pid !== deadPid) return [];
    const { leaf, run } = record;
    const leafPid = leaf !== undefined && Number.isInteger(leaf) && leaf > 1 ? leaf : null;
    return [{ name, leafPid, marker: run === undefined ? null : `LEAP_LEAF_${run}` }];
  });
}

/** SIGKILL every process of the orphans' sessions or carrying their markers, until none is left (at most `capMs`). */
export async function endOrphanLeaves(orphans: readonly OrphanLeaf[], capMs = 5000): Promise<number> {
  if (orphans.length === 0) return 0;
  const sessions = new Set(orphans.map((o) => o.leafPid));
  const markers = orphans.flatMap((o) => (o.marker === null ? [] : [o.marker]));
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

/** The lifeline's sweep and `leap-stop orphans`; null while `deadPid` lives (its leaves are its own). */
export async function sweepOrphansOf(deadPid: number, stateDirs: readonly string[]): Promise<OrphanSweep | null> {
  const holder = readProc(deadPid);
  if (holder !== null && !isGone(holder)) return null;
  const orphans = stateDirs.flatMap((dir) => findOrphanLeaves(dir, deadPid));
  return { leaves: orphans.map((o) => o.name), killed: await endOrphanLeaves(orphans) };
}
