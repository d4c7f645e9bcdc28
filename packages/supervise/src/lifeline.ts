// However this process dies, its `sh` lifeline runs `leap-stop orphans PID DIR...`: docs/decisions/lifeline.md.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { orElse } from '@leap/core';

let line: ChildProcess | null = null;
const armed = new Set<string>();
/** Supervisions of this process under way (armed and not yet released). */
let running = 0;

/** The `leap-stop` bin of this package, or null where it cannot be found (not built): then no lifeline. */
function leapStopBin(): string | null {
  const root = orElse(() => dirname(createRequire(import.meta.url).resolve('@leap/supervise/package.json')), null);
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
