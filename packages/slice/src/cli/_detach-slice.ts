// `leap slice run --detach`: the run started detached (@leap/supervise's detach-run.ts), its files in `<state>/detached/slice-ID/`.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { LeapError, UsageError, findRepoRoot, isProcessAlive, readLockHolder, resolveStateDir, type SubcommandIo } from '@leap/core';
import { readSlice } from '../definition/read-slice.js';
import { liveEngine, sliceLockFile } from '../slice-lock.js';
import { detachRun } from '@leap/supervise';

// A word a shell reads back as itself: as is when it is plain, else in single quotes.
const shellWord = (word: string): string => (/^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** Start `leap slice run ARGS` detached; print where to poll (or, ended at once, what it said) and return the exit code. */
export async function detachSlice(file: string, args: string[], json: boolean, io: SubcommandIo): Promise<number> {
  // The slice file is read here (bad input, exit 2, before anything starts): its id names the lock and the files.
  const slice = readSlice(resolve(io.cwd, file));
  const root = findRepoRoot(resolve(io.cwd));
  if (root === null) throw new UsageError(`${file}: leap slice run works in a git repository; ${io.cwd} is not in one`);
  const running = liveEngine(root, slice.id);
  if (running !== null) {
    throw new LeapError(`slice ${JSON.stringify(slice.id)} is being run by live process ${running} (${sliceLockFile(root, slice.id)}); wait for it to end or stop it`, { exitCode: 2 });
  }
  const lockFile = sliceLockFile(root, slice.id);
  const holder = () => {
    const h = readLockHolder(lockFile);
    return h !== null && isProcessAlive(h) ? h.pid : null;
  };
  const stateDir = resolveStateDir(io.env, root);
  const hadState = existsSync(stateDir);
  const dir = join(stateDir, 'detached', `slice-${slice.id}`);
  const run = await detachRun({ dir, args: ['slice', 'run', ...args], cwd: io.cwd, env: io.env, lockHolder: holder });
  const status = `leap slice status ${shellWord(file)}`;
  if (!run.started) {
    io.stdout(run.stdout);
    io.stderr(run.stderr);
    // Bad input leaves nothing: the detached files said it, and go (the state folder too, when this start made it).
    if (run.code === 2) {
      rmSync(dir, { recursive: true, force: true });
      removeIfEmpty(dirname(dir));
      if (!hadState) rmSync(stateDir, { recursive: true, force: true });
    }
    return run.code;
  }
  const wait = `VERI_STATE_DIR=${shellWord(dir)} leap-wait run`;
  if (json) io.stdout(`${JSON.stringify({ pid: run.pid, supervisor: run.supervisor, slice: slice.id, status, out: run.out, err: run.err, wait })}\n`);
  else io.stdout(`slice ${slice.id}: run started detached, pid ${run.pid} (supervisor ${run.supervisor}); poll: ${status}; output: ${run.out} and ${run.err}\n`);
  return 0;
}

function removeIfEmpty(dir: string): void {
  try {
    if (readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
  } catch {
    // Gone already.
  }
}
