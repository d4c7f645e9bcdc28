// A supervisor inside another program (the conductor, the slice engine, a worker, a jury) dies with that program:
// a SIGKILL ends it before it can end its leaves, which run in sessions of their own, and a sandbox's init can
// outlive it too (bwrap asks to die with its parent only once the sandbox is set up, after the clone: a parent
// killed in those few milliseconds leaves the sandbox running, with parent 1). The lifeline is one small `sh` per
// process, in a session of its own so a process-group kill spares it, reading a pipe that only this process holds.
// When this process dies, however it dies, the pipe ends, and `sh` runs `leap-stop orphans PID DIR...`: every leaf
// whose NAME.pid names this process and that has no exit file is ended (findOrphanLeaves, endOrphanLeaves), as the
// next run's resume would, but now. At an exit with no leaf running the lifeline is killed first and runs nothing;
// an exit while leaves run (an error thrown past a running jury, an explicit exit) lets it sweep them.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Writable } from 'node:stream';

let line: ChildProcess | null = null;
const armed = new Set<string>();
/** Supervisions of this process under way (armed and not yet released). */
let running = 0;

/** The `leap-stop` bin of this package, or null where it cannot be found (not built): then no lifeline. */
function leapStopBin(): string | null {
  try {
    const manifest = createRequire(import.meta.url).resolve('@leap/supervise/package.json');
    const bin = join(dirname(manifest), 'bin', 'leap-stop.cjs');
    return existsSync(bin) && existsSync(join(dirname(manifest), 'dist', 'bin', 'leap-stop.cjs')) ? bin : null;
  } catch {
    return null;
  }
}

/**
 * Make sure that when this process dies, the leaf it is about to supervise in `stateDir` is ended: call before the
 * leaf starts, and the returned function once its exit file is written. Best effort: where the lifeline cannot be
 * started, the next run's resume still ends the leaf.
 */
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
    // `dirs=$(cat)` waits for the end of the pipe (this process gone), then the folders written to it, one JSON
    // string a line, are handed to leap-stop's --lines.
    const child = spawn('/bin/sh', ['-c', 'dirs=$(cat); exec "$@" --lines "$dirs"', 'leap-lifeline', process.execPath, bin, 'orphans', String(process.pid)], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.on('error', () => {
      // No lifeline after all: the next leaf tries again, and hands the new one every folder, not only its own.
      line = null;
      armed.clear();
    });
    child.unref();
    (child.stdin as Writable & { unref?: () => void }).unref?.();
    (child.stdin as Writable).on('error', () => {});
    process.once('exit', () => {
      // No leaf running: the lifeline and its `cat` go without running anything. Leaves still running are orphans
      // from now on: the pipe ends with this process and they are swept.
      if (running === 0 && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
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
