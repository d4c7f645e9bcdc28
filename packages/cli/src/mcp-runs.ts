// Every `leap mcp` tool runs the `leap` bin: its errors are the CLI's, and only the protocol reaches stdout.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  ensureStateDir,
  isProcessAlive,
  processIdentity,
  readFileIfExists,
  resolveStateDir,
  writeFileAtomic,
} from '@leap/core';
import { leapBin } from './version.js';

export interface BinRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `leap ARGS...` (no shell) in `cwd` to its end; a run past `timeoutMs` is killed (code null). */
export function runLeap(args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<BinRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [leapBin(), ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout: '', stderr: `leap could not start: ${error.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString('utf8');
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr:
          code === null
            ? `${stderr}leap ${args[0] ?? ''} did not end within ${timeoutMs / 1000} s and was killed\n`
            : stderr,
      });
    });
  });
}

interface DetachedRecord {
  pid: number;
  starttime: string;
  bootId: string;
  argv: string[];
  started: string;
  out: string;
  err: string;
}

/** Once ended: the exit code when it was seen to end, the result its --json printed; and the end of its stderr. */
export type DetachedState = Omit<DetachedRecord, 'starttime' | 'bootId'> & {
  running: boolean;
  code?: number | null;
  result?: unknown;
  stderr: string;
};

/** The record's name for a run of `kind` on `subject` (an issue number, a slice file). */
export function detachedName(kind: 'tdd' | 'slice', subject: string): string {
  if (kind === 'tdd') return `mcp-tdd-${subject}`;
  const stem = basename(subject)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 40);
  return `mcp-slice-${stem}-${createHash('sha256').update(subject).digest('hex').slice(0, 8)}`;
}

/** Its own session: a client ending its calls' process groups cannot take it along; `settleMs` catches bad input. */
export async function startDetached(
  name: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  settleMs: number,
): Promise<DetachedState> {
  const dir = ensureStateDir(resolveStateDir(env, cwd));
  const paths = { out: join(dir, `${name}.out`), err: join(dir, `${name}.err`), record: join(dir, `${name}.json`) };
  const out = openSync(paths.out, 'w');
  const err = openSync(paths.err, 'w');
  const child = spawn(process.execPath, [leapBin(), ...args], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', out, err],
  });
  closeSync(out);
  closeSync(err);
  const ended = new Promise<number | null>((resolve) => {
    child.on('error', () => resolve(127));
    child.on('exit', (code) => resolve(code));
  });
  child.unref();
  const identity = child.pid === undefined ? null : processIdentity(child.pid);
  const record: DetachedRecord = {
    pid: child.pid ?? 0,
    starttime: identity?.starttime ?? '',
    bootId: identity?.bootId ?? '',
    argv: args,
    started: new Date().toISOString(),
    out: paths.out,
    err: paths.err,
  };
  writeFileAtomic(paths.record, `${JSON.stringify(record)}\n`, { durable: false });
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    ended,
    new Promise<'running'>((resolve) => {
      timer = setTimeout(() => resolve('running'), settleMs);
    }),
  ]);
  clearTimeout(timer);
  return code === 'running' ? { ...stateOf(record), running: true } : { ...stateOf(record), running: false, code };
}

/** The detached run `name` of this repository's state folder, or null when the server never started one. */
export function readDetached(name: string, cwd: string, env: NodeJS.ProcessEnv): DetachedState | null {
  const dir = resolveStateDir(env, cwd);
  const text = readFileIfExists(join(dir, `${name}.json`));
  if (text === null) return null;
  // The record's own out and err paths are not trusted (the state folder is writable): they are the name's.
  return stateOf({
    ...(JSON.parse(text) as DetachedRecord),
    out: join(dir, `${name}.out`),
    err: join(dir, `${name}.err`),
  });
}

function stateOf(record: DetachedRecord): DetachedState {
  const running =
    record.starttime !== '' && isProcessAlive({ pid: record.pid, starttime: record.starttime, bootId: record.bootId });
  const state: DetachedState = {
    running,
    pid: record.pid,
    argv: record.argv,
    started: record.started,
    stderr: tail(readFileIfExists(record.err) ?? ''),
    out: record.out,
    err: record.err,
  };
  if (!running) {
    const printed = (readFileIfExists(record.out) ?? '').trim();
    try {
      state.result = printed === '' ? null : JSON.parse(printed);
    } catch {
      state.result = printed;
    }
  }
  return state;
}

function tail(text: string, bytes = 4096): string {
  return text.length <= bytes ? text : `...${text.slice(-bytes)}`;
}
