// leap-wait: block until NAME.exit exists, woken by the file system, polling as the safety net.
import { watch, type FSWatcher } from 'node:fs';
import { checkLeafName, isProcessAlive, orElse, resolveStateDir, statePaths } from '@leap/core';
import { readExitFile, readPidFile, type ExitRecord, type PidRecord } from './leaf-files.js';
import { nowMs, setLongTimeout } from './long-timer.js';
import { WAIT_BUDGET_SPENT, WAIT_SUPERVISOR_GONE } from './exit-codes.js';

// Under the 600 s cap of a foreground tool call.
const DEFAULT_WAIT_BUDGET_MS = 590_000;

export interface WaitOptions {
  name: string;
  /** How long to wait; 0 looks once. Default DEFAULT_WAIT_BUDGET_MS. */
  budgetMs?: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  pollMs?: number;
  maxPollMs?: number;
}

export interface WaitResult {
  name: string;
  code: number;
  status: string;
  exit: ExitRecord | null;
  supervisor: number | null;
  waitedMs: number;
}

// The exit file answers only if it belongs to the run NAME.pid names (a stale file from an earlier run does not).
const ownExit = (exit: ExitRecord | null, pid: PidRecord | null): ExitRecord | null =>
  exit !== null && (pid === null || exit.run === pid.run) ? exit : null;

/** No NAME.pid yet is a supervisor still starting: keep waiting; a dead, zombie or reused one is supervisor-gone. */
export async function waitLeaf(options: WaitOptions): Promise<WaitResult> {
  const name = checkLeafName(options.name);
  const paths = statePaths(resolveStateDir(options.env ?? process.env, options.cwd ?? process.cwd()));
  const exitFile = paths.exit(name);
  const pidFile = paths.pid(name);
  const started = nowMs();
  const budget = options.budgetMs ?? DEFAULT_WAIT_BUDGET_MS;
  const done = (code: number, status: string, exit: ExitRecord | null, pid: PidRecord | null): WaitResult => {
    const supervisor = pid !== null && Number.isInteger(pid.pid) ? pid.pid : null;
    return { name, code, status, exit, supervisor, waitedMs: Math.round(nowMs() - started) };
  };
  const look = (): WaitResult | null => {
    const pid = readPidFile(pidFile);
    const exit = ownExit(readExitFile(exitFile), pid);
    if (exit !== null) return done(exit.code, exit.status, exit, pid);
    if (pid === null || (Number.isInteger(pid.pid) && isProcessAlive(pid))) return null;
    // Gone: the exit file may have been written just before it died.
    const last = ownExit(readExitFile(exitFile), readPidFile(pidFile));
    if (last !== null) return done(last.code, last.status, last, pid);
    return done(WAIT_SUPERVISOR_GONE, 'supervisor-gone', null, pid);
  };

  const spent = (): WaitResult => done(WAIT_BUDGET_SPENT, 'budget-spent', null, readPidFile(pidFile));
  const first = look();
  if (first !== null) return first;
  if (budget <= 0) return spent();

  return new Promise<WaitResult>((resolve) => {
    let poll = options.pollMs ?? 50;
    const maxPoll = options.maxPollMs ?? 500;
    let timer: NodeJS.Timeout | undefined;
    let watcher: ReturnType<typeof watchDir> | null = null;
    let finished = false;
    const finish = (result: WaitResult): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      cancelBudget();
      watcher?.close();
      resolve(result);
    };
    const check = (): void => {
      if (finished) return;
      const result = look();
      if (result !== null) finish(result);
    };
    const onChange = (file: string | null): void => {
      if (file === null || file.startsWith(`${name}.`)) check();
    };
    const arm = (): void => {
      timer = setTimeout(() => {
        // Subscribe, then look: a watch that failed (or a folder that did not exist yet) is retried.
        if (watcher === null || !watcher.active) watcher = watchDir(paths.dir, onChange);
        check();
        poll = Math.min(maxPoll, Math.ceil(poll * 1.5));
        if (!finished) arm();
      }, poll);
    };
    const cancelBudget = setLongTimeout(() => finish(look() ?? spent()), Math.max(0, budget - (nowMs() - started)));
    watcher = watchDir(paths.dir, onChange);
    check();
    if (!finished) arm();
  });
}

/** `active` is false once the watch failed (a missing folder, EMFILE/ENOSPC, no events) or was closed: never throws. */
export function watchDir(dir: string, onChange: (filename: string | null) => void) {
  let watcher: FSWatcher | null = null;
  const close = (): void => {
    watcher?.close();
    watcher = null;
  };
  const listen = (_event: string, filename: string | Buffer | null): void =>
    onChange(filename === null ? null : String(filename));
  watcher = orElse(() => watch(dir, { persistent: false }, listen), null);
  watcher?.on('error', close);
  return {
    get active() {
      return watcher !== null;
    },
    close,
  };
}
