// `leap tdd run --detach` through @leap/supervise's detachRun; its files in `<state>/detached/issue-N/`.
import { isProcessAlive, readLockHolder, resolveStateDir, statePaths } from '@leap/core';
import type { SubcommandIo } from '@leap/core';
import { detachRun } from '@leap/supervise';
import { lockedError, repoRootOf } from './run-files.js';

/** Prints where to poll, or, when the run ended at once, what it said, and returns its exit code. */
export async function detachTdd(issue: number, args: string[], json: boolean, io: SubcommandIo): Promise<number> {
  const stateDir = resolveStateDir(io.env, repoRootOf(io.cwd));
  const lockFile = statePaths(stateDir).conductorLock(issue);
  const holder = () => {
    const h = readLockHolder(lockFile);
    return h !== null && isProcessAlive(h) ? h.pid : null;
  };
  const running = holder();
  if (running !== null) throw lockedError(issue, running, lockFile);
  const run = await detachRun({
    stateDir,
    name: `issue-${issue}`,
    args: ['tdd', 'run', ...args],
    cwd: io.cwd,
    env: io.env,
    lockHolder: holder,
  });
  const status = `leap tdd status --issue ${issue}`;
  if (!run.started) {
    io.stdout(run.stdout);
    io.stderr(run.stderr);
    return run.code;
  }
  const { pid, supervisor, out, err, wait } = run;
  io.stdout(
    json
      ? `${JSON.stringify({ pid, supervisor, issue, status, out, err, wait })}\n`
      : `issue ${issue}: run started detached, pid ${pid} (supervisor ${supervisor}); poll: ${status}; ` +
          `output: ${out} and ${err}\n`,
  );
  return 0;
}
