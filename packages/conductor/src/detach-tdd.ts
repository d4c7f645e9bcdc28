// `leap tdd run --detach`: the run started detached (@leap/supervise's detach-run.ts), its files in `<state>/detached/issue-N/`.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError, findRepoRoot, isProcessAlive, readLockHolder, resolveStateDir, statePaths, type SubcommandIo } from '@leap/core';
import { detachRun } from '@leap/supervise';
import { conductorLockFile } from './run-files.js';

// A word a shell reads back as itself: as is when it is plain, else in single quotes.
const shellWord = (word: string): string => (/^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** Start `leap tdd run ARGS` detached; print where to poll (or, ended at once, what it said) and return the exit code. */
export async function detachTdd(issue: number, args: string[], json: boolean, io: SubcommandIo): Promise<number> {
  const root = findRepoRoot(resolve(io.cwd));
  if (root === null) throw new UsageError(`${io.cwd} is not inside a git repository: leap tdd run works on a repository's branch`);
  const stateDir = resolveStateDir(io.env, root);
  const lockFile = conductorLockFile(statePaths(stateDir), issue);
  const holder = () => {
    const h = readLockHolder(lockFile);
    return h !== null && isProcessAlive(h) ? h.pid : null;
  };
  const running = holder();
  if (running !== null) throw new UsageError(`another conductor is running issue ${issue} (pid ${running}, see ${lockFile}); stop it first (leap tdd stop now)`);
  const hadState = existsSync(stateDir);
  const dir = join(stateDir, 'detached', `issue-${issue}`);
  const run = await detachRun({ dir, args: ['tdd', 'run', ...args], cwd: io.cwd, env: io.env, lockHolder: holder });
  const status = `leap tdd status --issue ${issue}`;
  if (!run.started) {
    io.stdout(run.stdout);
    io.stderr(run.stderr);
    // Bad input touches nothing: the detached files said it, and go (the state folder too, when this start made it).
    if (run.code === 2) {
      rmSync(dir, { recursive: true, force: true });
      removeIfEmpty(dirname(dir));
      if (!hadState) rmSync(stateDir, { recursive: true, force: true });
    }
    return run.code;
  }
  const wait = `VERI_STATE_DIR=${shellWord(dir)} leap-wait run`;
  if (json) io.stdout(`${JSON.stringify({ pid: run.pid, supervisor: run.supervisor, issue, status, out: run.out, err: run.err, wait })}\n`);
  else io.stdout(`issue ${issue}: run started detached, pid ${run.pid} (supervisor ${run.supervisor}); poll: ${status}; output: ${run.out} and ${run.err}\n`);
  return 0;
}

function removeIfEmpty(dir: string): void {
  try {
    if (readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
  } catch {
    // Gone already.
  }
}
