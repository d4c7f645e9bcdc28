// `leap slice run --detach`: the run started detached (supervise's detach-run.ts), files in <state>/detached/slice-ID/.
import { resolve } from 'node:path';
import {
  LeapError,
  UsageError,
  findRepoRoot,
  isProcessAlive,
  readLockHolder,
  resolveStateDir,
  shellWord,
  type SubcommandIo,
} from '@leap/core';
import { readSlice } from '../definition/read-slice.js';
import { liveEngine, sliceLockFile } from '../slice-lock.js';
import { detachRun } from '@leap/supervise';

/** Detach `leap slice run ARGS`; print where to poll (or, ended at once, what it said); return the exit code. */
export async function detachSlice(file: string, args: string[], json: boolean, io: SubcommandIo): Promise<number> {
  // The slice file is read here (bad input, exit 2, before anything starts): its id names the lock and the files.
  const slice = readSlice(resolve(io.cwd, file));
  const root = findRepoRoot(resolve(io.cwd));
  if (root === null) throw new UsageError(`${file}: leap slice run works in a git repository; ${io.cwd} is not in one`);
  const running = liveEngine(root, slice.id);
  if (running !== null) {
    throw new LeapError(
      `slice ${JSON.stringify(slice.id)} is being run by live process ${running} (${sliceLockFile(root, slice.id)}); wait for it to end or stop it`,
      { exitCode: 2 },
    );
  }
  const lockFile = sliceLockFile(root, slice.id);
  const holder = () => {
    const h = readLockHolder(lockFile);
    return h !== null && isProcessAlive(h) ? h.pid : null;
  };
  const stateDir = resolveStateDir(io.env, root);
  const run = await detachRun({
    stateDir,
    name: `slice-${slice.id}`,
    args: ['slice', 'run', ...args],
    cwd: io.cwd,
    env: io.env,
    lockHolder: holder,
  });
  const status = `leap slice status ${shellWord(file)}`;
  if (!run.started) {
    io.stdout(run.stdout);
    io.stderr(run.stderr);
    return run.code;
  }
  if (json)
    io.stdout(
      `${JSON.stringify({ pid: run.pid, supervisor: run.supervisor, slice: slice.id, status, out: run.out, err: run.err, wait: run.wait })}\n`,
    );
  else
    io.stdout(
      `slice ${slice.id}: run started detached, pid ${run.pid} (supervisor ${run.supervisor}); poll: ${status}; output: ${run.out} and ${run.err}\n`,
    );
  return 0;
}
