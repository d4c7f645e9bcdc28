// `leap slice run --detach`: the run started detached (supervise's detach-run.ts), files in <state>/detached/slice-ID/.
import { resolve } from 'node:path';
import { UsageError, findRepoRoot, isProcessAlive, readLockHolder, resolveStateDir, shellWord } from '@leap/core';
import type { SubcommandIo } from '@leap/core';
import { readSlice } from '../definition/read-slice.js';
import { liveEngine, sliceBusy, sliceLockFile } from '../slice-lock.js';
import { detachRun } from '@leap/supervise';

/** Detach `leap slice run ARGS`; print where to poll (or, ended at once, what it said); return the exit code. */
export async function detachSlice(file: string, args: string[], json: boolean, io: SubcommandIo): Promise<number> {
  // The slice file is read here (bad input, exit 2, before anything starts): its id names the lock and the files.
  const slice = readSlice(resolve(io.cwd, file));
  const root = findRepoRoot(resolve(io.cwd));
  if (root === null) throw new UsageError(`${file}: leap slice run works in a git repository; ${io.cwd} is not in one`);
  const lockFile = sliceLockFile(root, slice.id);
  const running = liveEngine(root, slice.id);
  if (running !== null) throw sliceBusy(slice.id, running, lockFile);
  const holder = () => {
    const h = readLockHolder(lockFile);
    return h !== null && isProcessAlive(h) ? h.pid : null;
  };
  const where = { stateDir: resolveStateDir(io.env, root), cwd: io.cwd, env: io.env, lockHolder: holder };
  const run = await detachRun({ ...where, name: `slice-${slice.id}`, args: ['slice', 'run', ...args] });
  const status = `leap slice status ${shellWord(file)}`;
  if (!run.started) return (io.stdout(run.stdout), io.stderr(run.stderr), run.code);
  const { pid, supervisor, out, err, wait } = run;
  const said =
    `slice ${slice.id}: run started detached, pid ${pid} (supervisor ${supervisor}); ` +
    `poll: ${status}; output: ${out} and ${err}`;
  io.stdout(`${json ? JSON.stringify({ pid, supervisor, slice: slice.id, status, out, err, wait }) : said}\n`);
  return 0;
}
