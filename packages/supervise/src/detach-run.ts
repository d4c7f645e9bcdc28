// `--detach` of `leap tdd run` and `leap slice run`: leap-detach + leap-supervise with no time limit.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LeapError, UsageError, isProcessAlive, shellWord, orElse } from '@leap/core';
import { readExitFile, readPidFile } from './leaf-files.js';
import { packageRoot } from './lifeline.js';

export interface DetachRunOptions {
  /** Detached files go in `STATE/detached/NAME/` (run.pid, run.exit, events.jsonl, run.out, run.err). */
  stateDir: string;
  name: string;
  /** `leap`'s arguments for the run itself (without `--detach`), passed byte for byte. */
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The pid holding the run's own lock now (null: none): the run has started once its pid holds it. */
  lockHolder: () => number | null;
  /** How long the run may take to take its lock (default 120 s); past it, the caller is told it is still starting. */
  startMs?: number;
}

export type DetachRunResult =
  | { started: true; pid: number; supervisor: number; out: string; err: string; dir: string; wait: string }
  | { started: false; code: number; stdout: string; stderr: string; out: string; err: string };

// What the supervisor reads and the run must not: restored for the run by `env` (no shell; values are argv elements).
const SUPERVISOR_ONLY = ['VERI_STATE_DIR', 'VERI_TIMEOUT', 'VERI_IDLE_TIMEOUT'] as const;

const supervisorBin = (name: 'leap-detach' | 'leap-supervise'): string => join(packageRoot(), 'bin', `${name}.cjs`);

/** Resolves once the run's pid holds its lock (it has really started), or once it has ended. */
export async function detachRun(options: DetachRunOptions): Promise<DetachRunResult> {
  const { stateDir } = options;
  const dir = join(stateDir, 'detached', options.name);
  const file = join(dir, 'run.pid');
  const record = readPidFile(file);
  if (record !== null && Number.isInteger(record.pid) && isProcessAlive(record)) {
    throw new UsageError(
      `a detached run is still running here (supervisor pid ${record.pid}` +
        `${record.leaf === undefined ? '' : `, run pid ${record.leaf}`}, see ${file}); wait for it to end or stop it`,
    );
  }
  const hadState = existsSync(stateDir);
  mkdirSync(dir, { recursive: true });
  const result = await startAndAwait(options, dir);
  // Bad input touches nothing: the detached files said it, and go (the state folder too, when this start made it).
  if (!result.started && result.code === 2) {
    rmSync(dir, { recursive: true, force: true });
    orElse(() => rmdirSync(dirname(dir)), undefined);
    if (!hadState) rmSync(stateDir, { recursive: true, force: true });
  }
  return result;
}

async function startAndAwait(options: DetachRunOptions, dir: string): Promise<DetachRunResult> {
  const { env, cwd } = options;
  const out = join(dir, 'run.out');
  const err = join(dir, 'run.err');
  const restore = [
    ...SUPERVISOR_ONLY.filter((k) => env[k] === undefined).flatMap((k) => ['-u', k]),
    ...SUPERVISOR_ONLY.filter((k) => env[k] !== undefined).map((k) => `${k}=${env[k]}`),
  ];
  const detachArgs = [supervisorBin('leap-detach'), process.execPath, supervisorBin('leap-supervise'), 'run'];
  const leap = process.argv[1];
  if (!leap) {
    const why = '--detach: cannot tell which leap bin runs this process (process.argv[1] is empty)';
    throw new LeapError(why, { exitCode: 2 });
  }
  const argv = [...detachArgs, 'env', ...restore, process.execPath, leap, ...options.args];
  const supervisorEnv = { ...env, VERI_STATE_DIR: dir, VERI_TIMEOUT: '0', VERI_IDLE_TIMEOUT: '0' };
  const outFd = openSync(out, 'w');
  const errFd = openSync(err, 'w');
  let code: number | null;
  try {
    // leap-detach passes its stdout and stderr (these files) on to the supervisor, which passes them to the run.
    const child = spawn(process.execPath, argv, { cwd, env: supervisorEnv, stdio: ['ignore', outFd, errFd] });
    [code] = await once(child, 'exit');
  } finally {
    closeSync(outFd);
    closeSync(errFd);
  }
  if (code !== 0) {
    const why = text(err).trim() || `leap-detach exited with ${code}`;
    throw new LeapError(`--detach: the run could not be started: ${why}`, { exitCode: 1 });
  }
  const pidFile = join(dir, 'run.pid');
  const exitFile = join(dir, 'run.exit');
  const supervisor = readPidFile(pidFile);
  const startMs = options.startMs ?? 120_000;
  const deadline = Date.now() + startMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    const record = readPidFile(pidFile);
    const ended = readExitFile(exitFile);
    if (ended !== null && (supervisor?.run === undefined || ended.run === undefined || ended.run === supervisor.run)) {
      const stderr = text(err).replace(/supervise\[run\]: [^\n]*\n$/, '');
      return { started: false, code: ended.code, stdout: text(out), stderr, out, err };
    }
    const pid = record?.leaf;
    if (pid !== undefined && options.lockHolder() === pid) {
      const wait = `VERI_STATE_DIR=${shellWord(dir)} leap-wait run`;
      return { started: true, pid, supervisor: record?.pid ?? supervisor?.pid ?? 0, out, err, dir, wait };
    }
    if (Date.now() > deadline) {
      throw new LeapError(
        `--detach: the run (supervisor pid ${supervisor?.pid ?? '?'}) has not taken its lock ` +
          `within ${startMs / 1000} s; it is left running, its output in ${out} and ${err}`,
        { exitCode: 1 },
      );
    }
    await new Promise((r) => setTimeout(r, wait));
  }
}

const text = (file: string): string => orElse(() => readFileSync(file, 'utf8'), '');
