// Test helpers of @leap/supervise: the built bins, fixtures, state folders, recorded pids, cleanup of strays.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binPath, isAlive, makeGitRepo, runBin, waitFor, type RunResult } from '@leap/test-utils';
import { readEvents } from '@leap/core';
import type { LeapEvent } from '@leap/core';
import { readExitFile, readPidFile, type ExitRecord } from '../src/leaf-files.js';

const here = dirname(fileURLToPath(import.meta.url));
export const SUPERVISE = binPath('supervise', 'leap-supervise');
export const DETACH = binPath('supervise', 'leap-detach');
export const WAIT = binPath('supervise', 'leap-wait');
export const STOP = binPath('supervise', 'leap-stop');

/** A process fixture of test/fixtures. */
export function fixture(name: string): string {
  return join(here, 'fixtures', name);
}

/** A fresh repository with its state folder; `env` points FIXTURE_PIDS into it. */
export interface Scene {
  repo: string;
  state: string;
  pidsFile: string;
  env: NodeJS.ProcessEnv;
}

/** A temp git repository with `.tdd/`, and an environment without any VERI_* leaking from the caller. */
export function makeScene(extra: NodeJS.ProcessEnv = {}): Scene {
  const repo = makeGitRepo({ prefix: 'leap-sv-' });
  const state = join(repo, '.tdd');
  mkdirSync(state, { recursive: true });
  const pidsFile = join(repo, 'pids.txt');
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('VERI_') && !k.startsWith('BASH_') && !k.startsWith('LEAP_')) env[k] = v;
  // A test that goes wrong must not hang: every leaf has a timeout unless the test sets its own.
  Object.assign(env, { FIXTURE_PIDS: pidsFile, VERI_KILL_AFTER: '0.3', VERI_TIMEOUT: '20' }, extra);
  return { repo, state, pidsFile, env };
}

/** Pids the fixtures recorded, by role. */
export function recordedPids(scene: Scene, role?: string): number[] {
  if (!existsSync(scene.pidsFile)) return [];
  return readFileSync(scene.pidsFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '))
    .filter(([r]) => role === undefined || r === role)
    .map(([, pid]) => Number(pid));
}

const strays = new Set<number>();

/** Remember pids to SIGKILL after the test, whatever happened. */
export function track(...pids: number[]): void {
  for (const pid of pids) strays.add(pid);
}

/** SIGKILL every tracked pid and group still alive (teardown). */
export function killStrays(): void {
  for (const pid of strays) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
  strays.clear();
}

/** Run the built leap-supervise in `scene`. */
export function superviseBin(
  scene: Scene,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: SpawnOptions = {},
): Promise<RunResult> {
  return runBin(SUPERVISE, args, { cwd: scene.repo, env: { ...scene.env, ...env }, ...options });
}

/** Run one of the built bins in `scene`. */
export function bin(path: string, scene: Scene, args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  return runBin(path, args, { cwd: scene.repo, env: { ...scene.env, ...env } });
}

/** A started process in its own group (so the test can kill the group), with its output collected. */
export interface Started {
  child: ChildProcess;
  pid: number;
  done: Promise<RunResult>;
}

/** Start `command` in a new process group (detached) with piped output; tracked for teardown. */
export function start(
  command: string,
  args: string[],
  options: SpawnOptions & { cwd: string; env: NodeJS.ProcessEnv },
): Started {
  const child = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], ...options });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (b: Buffer) => out.push(b));
  child.stderr?.on('data', (b: Buffer) => err.push(b));
  const done = new Promise<RunResult>((resolve) => {
    child.on('close', (code, signal) =>
      resolve({ code, signal, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }),
    );
  });
  if (child.pid === undefined) throw new Error(`cannot start ${command}`);
  track(child.pid);
  return { child, pid: child.pid, done };
}

/** Start leap-supervise in `scene` in a group of its own. */
export function startSupervise(scene: Scene, args: string[], env: NodeJS.ProcessEnv = {}): Started {
  return start(process.execPath, [SUPERVISE, ...args], { cwd: scene.repo, env: { ...scene.env, ...env } });
}

/** NAME.exit of the scene, or null. */
export function exitRecord(scene: Scene, name: string): ExitRecord | null {
  return readExitFile(join(scene.state, `${name}.exit`));
}

/** NAME.pid's supervisor pid, once written. */
export async function supervisorPid(scene: Scene, name: string): Promise<number> {
  const record = await waitFor(() => readPidFile(join(scene.state, `${name}.pid`)), 10_000);
  if (record === null) throw new Error(`${name}.pid never appeared`);
  return record.pid;
}

/** Every event of the scene's log, validated by the published schema (readEvents rejects a bad one). */
function events(scene: Scene): LeapEvent[] {
  return readEvents(join(scene.state, 'events.jsonl')).map((r) => r.event);
}

/** Events of one kind for one leaf. */
export function eventsOf<K extends LeapEvent['event']>(
  scene: Scene,
  kind: K,
  leaf?: string,
): Extract<LeapEvent, { event: K }>[] {
  return events(scene).filter(
    (e): e is Extract<LeapEvent, { event: K }> =>
      e.event === kind && (leaf === undefined || (e as { leaf?: string }).leaf === leaf),
  );
}

/** The pids among `pids` still alive (judged from /proc, so zombies are dead). */
export function alive(pids: number[]): number[] {
  return pids.filter((pid) => isAlive(pid));
}

/** The STATUS word of the last `supervise[NAME]: STATUS` line of `stderr` (the status line is always last), or null. */
export function statusLine(stderr: string, name: string): string | null {
  const prefix = `supervise[${name}]: `;
  const line = stderr
    .split('\n')
    .filter((l) => l.startsWith(prefix))
    .pop();
  return line === undefined ? null : (line.slice(prefix.length).split(' ')[0] ?? null);
}

/** Seconds since `t0` (performance.now()). */
export function since(t0: number): number {
  return (performance.now() - t0) / 1000;
}
