// Every `leap mcp` tool runs the `leap` bin: its errors are the CLI's, and only the protocol reaches stdout.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ensureStateDir,
  isProcessAlive,
  orElse,
  processIdentity,
  readFileIfExists,
  resolveStateDir,
  writeFileAtomic,
} from '@leap/core';
import { leapBin } from './version.js';

const TOOL_TIMEOUT_MS = 120_000;
// How long a detached start waits for an early end, so bad input is answered at once.
const SETTLE_MS = 3_000;

export type BinRun = { code: number | null; stdout: string; stderr: string };

/** Run `leap ARGS...` (no shell) in `cwd` to its end; a run past the tool timeout is killed (code null). */
export function runLeap(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<BinRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [leapBin(), ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill('SIGKILL'), TOOL_TIMEOUT_MS);
    const settle = (run: BinRun) => (clearTimeout(timer), resolve(run));
    child.on('error', (error) => settle({ code: null, stdout: '', stderr: `leap could not start: ${error.message}` }));
    child.on('close', (code) => {
      const killed = `leap ${args[0] ?? ''} did not end within ${TOOL_TIMEOUT_MS / 1000} s and was killed\n`;
      const stderr = Buffer.concat(err).toString('utf8') + (code === null ? killed : '');
      settle({ code, stdout: Buffer.concat(out).toString('utf8'), stderr });
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

export function detachedName(kind: 'tdd' | 'slice', subject: string): string {
  if (kind === 'tdd') return `mcp-tdd-${subject}`;
  const stem = basename(subject)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 40);
  return `mcp-slice-${stem}-${createHash('sha256').update(subject).digest('hex').slice(0, 8)}`;
}

/** Its own session: a client ending its calls' process groups cannot take it along. */
export async function startDetached(name: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const dir = ensureStateDir(resolveStateDir(env, cwd));
  const { out, err } = logs(dir, name);
  const fds = [openSync(out, 'w'), openSync(err, 'w')];
  const child = spawn(process.execPath, [leapBin(), ...args], { cwd, env, detached: true, stdio: ['ignore', ...fds] });
  for (const fd of fds) closeSync(fd);
  const ended = new Promise<number | null>((resolve) => child.on('error', () => resolve(127)).on('exit', resolve));
  child.unref();
  const identity = child.pid === undefined ? null : processIdentity(child.pid);
  const record: DetachedRecord = {
    pid: child.pid ?? 0,
    starttime: identity?.starttime ?? '',
    bootId: identity?.bootId ?? '',
    argv: args,
    started: new Date().toISOString(),
    out,
    err,
  };
  writeFileAtomic(join(dir, `${name}.json`), `${JSON.stringify(record)}\n`, { durable: false });
  const code = await Promise.race([ended, sleep(SETTLE_MS, 'running' as const, { ref: false })]);
  return code === 'running' ? { ...stateOf(record), running: true } : { ...stateOf(record), running: false, code };
}

/** The detached run `name` of this repository's state folder, or null when the server never started one. */
export function readDetached(name: string, cwd: string, env: NodeJS.ProcessEnv): DetachedState | null {
  const dir = resolveStateDir(env, cwd);
  const text = readFileIfExists(join(dir, `${name}.json`));
  if (text === null) return null;
  // The record's own out and err paths are not trusted (the state folder is writable): they are the name's.
  return stateOf({ ...(JSON.parse(text) as DetachedRecord), ...logs(dir, name) });
}

const logs = (dir: string, name: string) => ({ out: join(dir, `${name}.out`), err: join(dir, `${name}.err`) });

function stateOf({ pid, starttime, bootId, argv, started, out, err }: DetachedRecord): DetachedState {
  const running = starttime !== '' && isProcessAlive({ pid, starttime, bootId });
  const text = readFileIfExists(err) ?? '';
  const stderr = text.length <= 4096 ? text : `...${text.slice(-4096)}`;
  const state: DetachedState = { running, pid, argv, started, stderr, out, err };
  if (!running) {
    const printed = (readFileIfExists(out) ?? '').trim();
    state.result = printed === '' ? null : orElse(() => JSON.parse(printed) as unknown, printed);
  }
  return state;
}
