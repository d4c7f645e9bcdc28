// Helpers of the runner's end-to-end tests: a real redis-server on a free port of 127.0.0.1, a bare
// repository standing in for the shared remote, the engine's clone of it, `leap worker` processes in
// folders of their own standing in for machines, and slices whose proofs check file contents.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect as connectTcp, createServer } from 'node:net';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { git, makeGitRepo, makeTempDir, sourceCoverage } from '@leap/test-utils';
import type { Subcommand, SubcommandIo } from '@leap/core';
import { runSlice, type RoundRequest } from '@leap/slice';
import * as assert from 'uvu/assert';
import { workersCommand } from '../src/cli.js';
import { createBullmqRunner } from '../src/index.js';
import type { WorkersView } from '../src/workers.js';
import { ball, contentProof, eventsOf, readLeap } from '../../../packages/slice/test/engine-helpers.js';

export { eventsOf, readLeap };

export const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, 'fixtures');
// The runner is tested with the builder and reviewer the engine's own tests use.
const engineFixtures = join(here, '..', '..', '..', 'packages', 'slice', 'test', 'fixtures');
const tsx = join(here, '..', '..', '..', 'node_modules', 'tsx', 'dist', 'loader.mjs');

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/** A real redis-server, on 127.0.0.1 only, its files in a temp folder. */
export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Started again on the same port and folder (with its append-only file, when it has one). */
  restart(): Promise<void>;
}

export async function startRedis(options: { aof?: boolean } = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = makeTempDir('leap-redis-');
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--protected-mode',
    'yes',
    '--daemonize',
    'no',
    ...(options.aof === true ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
  ];
  let child: ChildProcess | null = null;
  const launch = async () => {
    const proc = spawn('/usr/bin/redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000);
      proc.stdout?.on('data', (b: Buffer) => {
        out += b.toString();
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited ${code}: ${out}`));
      });
    });
  };
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    const proc = child as ChildProcess | null;
    if (proc === null || proc.exitCode !== null || proc.signalCode !== null) return;
    const ended = new Promise((r) => proc.once('exit', r));
    proc.kill(signal);
    await ended;
    child = null;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    stop,
    restart: async () => {
      await stop();
      await launch();
    },
  };
}

/** A real sshd on 127.0.0.1, as the current user: its own host key, one client key, everything in a temp folder. */
export interface SshServer {
  port: number;
  user: string;
  /** How git reaches it: ssh with the client key, no host key check, never a prompt. */
  gitSshCommand: string;
  /** What sshd wrote (with -e: its log, the logins among it). */
  log: () => string;
  stop(): Promise<void>;
}

/** Start `sshd` (an absolute path, as sshd wants); one that is not there is an error saying what to install. */
export async function startSshd(sshd = '/usr/sbin/sshd'): Promise<SshServer> {
  if (!existsSync(sshd))
    throw new Error(
      `${sshd} is missing: the ssh-remote test needs openssh-server (.ci/run installs it: apt-get install openssh-server)`,
    );
  const dir = makeTempDir('leap-sshd-');
  const key = (name: string) => {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', join(dir, name)]);
    return join(dir, name);
  };
  const host = key('host_ed25519');
  const client = key('client_ed25519');
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${client}.pub`));
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      'ListenAddress 127.0.0.1',
      `Port ${port}`,
      `HostKey ${host}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      `PidFile ${join(dir, 'sshd.pid')}`,
      '',
    ].join('\n'),
  );
  // sshd run as root wants its privilege-separation folder.
  if (process.getuid?.() === 0 && !existsSync('/run/sshd')) mkdirSync('/run/sshd', { mode: 0o755, recursive: true });
  const child = spawn(sshd, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (b: Buffer) => {
    log += b.toString();
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const end = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${sshd} exited ${child.exitCode ?? child.signalCode}: ${log}`);
    const open = await new Promise<boolean>((r) => {
      const socket = connectTcp(port, '127.0.0.1', () => {
        socket.destroy();
        r(true);
      });
      socket.on('error', () => r(false));
    });
    if (open) break;
    if (Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`${sshd} does not accept on 127.0.0.1:${port}: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    user: userInfo().username,
    log: () => log,
    gitSshCommand: `ssh -i ${client} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A process of `leap worker` or `leap slice`, its output collected. */
export interface LeapProcess {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once stderr has a line matching `pattern` (rejects after `ms`). */
  waitFor(pattern: RegExp, ms?: number): Promise<string>;
}

export function spawnLeap(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): LeapProcess {
  const child = spawn(process.execPath, ['--import', tsx, join(fixtures, 'leap.ts'), ...args], {
    cwd: options.cwd,
    env: { ...(options.env ?? testEnv()), ...sourceCoverage() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  child.stderr?.on('data', (b: Buffer) => {
    err += b.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  return {
    child,
    out: () => out,
    err: () => err,
    exited,
    async waitFor(pattern, ms = 60_000) {
      const end = Date.now() + ms;
      for (;;) {
        const line = err.split('\n').find((l) => pattern.test(l));
        if (line !== undefined) return line;
        if (Date.now() > end || child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`no line matching ${pattern} (exit ${child.exitCode ?? child.signalCode}):\n${err}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

/** `leap worker` in a folder of its own (a machine), against `redis` and the remote `repo`. */
export function spawnWorker(
  redis: string,
  repo: string,
  name: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = testEnv(),
): LeapProcess & { dir: string } {
  const dir = makeTempDir(`leap-machine-${name.replace(/[^A-Za-z0-9]/g, '').slice(0, 20)}-`);
  const proc = spawnLeap(
    ['worker', '--redis', redis, '--repo', repo, '--name', name, '--dir', join(dir, 'w'), ...extra],
    { cwd: dir, env },
  );
  return { ...proc, dir };
}

/** The end of a test: the processes stopped with TERM (a paused one resumed first), then Redis. */
export async function stopAll(
  redis: RedisServer,
  ...procs: (LeapProcess | null)[]
): Promise<{ code: number | null; signal: NodeJS.Signals | null }[]> {
  const ends = await Promise.all(
    procs
      .filter((p) => p !== null)
      .map((p) => {
        p.child.kill('SIGCONT');
        return stop(p);
      }),
  );
  await redis.stop();
  return ends;
}

/** Stop a process with TERM and wait for it. */
export async function stop(proc: LeapProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGTERM');
  return proc.exited;
}

/** The queue secret of the tests' engines and workers. */
export const SECRET = "the tests' queue secret, $HOME `id` 🦀";

/** The environment of a run: short locks and stalled checks, so a dead worker's round moves on in seconds; the queue secret. */
export function testEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LEAP_QUEUE_SECRET: SECRET,
    LEAP_BULLMQ_LOCK_MS: '1500',
    LEAP_BULLMQ_STALLED_MS: '500',
    LEAP_BULLMQ_RETRY_MS: '1000',
    LEAP_BULLMQ_POLL_MS: '50',
    ...extra,
  };
  for (const key of Object.keys(env)) if (key.startsWith('VERI_') && !(key in extra)) delete env[key];
  return env;
}

export { ball, contentProof };

export type Plan = Record<
  string,
  Record<string, { edits?: { path: string; content?: string }[]; sleep_ms?: number; wait_for?: string; exit?: number }>
>;

/** An agents file: builder `b` (family fb) following `plan`; reviewers r1, r2 (f1, f2) that pass. */
export function writeAgents(dir: string, plan: Plan): string {
  const planFile = join(dir, 'plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  const reviewer = (name: string, family: string) => ({
    plugin: 'command',
    family,
    command: [process.execPath, join(engineFixtures, 'reviewer.mjs')],
    env: { REVIEW_MODE: 'pass', REVIEWER_NAME: name },
  });
  // The builder runs in a sandbox: its plan and gate files lie in `dir`, its entry's to read and write.
  const agents = {
    b: {
      plugin: 'command',
      family: 'fb',
      command: [process.execPath, join(engineFixtures, 'builder.mjs')],
      env: { BUILDER_PLAN: planFile },
      paths: { write: [dir] },
    },
    // A second builder (family fb2), for a builder list: the same fixture, the same plan.
    b2: {
      plugin: 'command',
      family: 'fb2',
      command: [process.execPath, join(engineFixtures, 'builder.mjs')],
      env: { BUILDER_PLAN: planFile },
      paths: { write: [dir] },
    },
    r1: reviewer('r1', 'f1'),
    r2: reviewer('r2', 'f2'),
  };
  const file = join(dir, 'agents.json');
  writeFileSync(file, JSON.stringify({ agents }, null, 2));
  return file;
}

/** The shared remote (a bare repository holding `files`), the engine's clone of it, and a folder for slice files. */
export function setupRemote(files: Record<string, string>) {
  const seed = makeGitRepo({ files });
  const remote = join(makeTempDir('leap-remote-'), 'shared.git');
  git(seed, 'clone', '-q', '--bare', seed, remote);
  const repo = makeTempDir('leap-engine-');
  git(repo, 'clone', '-q', remote, '.');
  git(repo, 'config', 'user.name', 'Leap Test');
  git(repo, 'config', 'user.email', 'leap@test.invalid');
  git(repo, 'config', 'commit.gpgsign', 'false');
  return { remote, repo, dir: makeTempDir('leap-slicefile-') };
}

/** Another clone of the remote, for a local run of the same slice. */
function cloneOf(remote: string): string {
  const repo = makeTempDir('leap-local-');
  git(repo, 'clone', '-q', remote, '.');
  git(repo, 'config', 'user.name', 'Leap Test');
  git(repo, 'config', 'user.email', 'leap@test.invalid');
  return repo;
}

export function writeSlice(dir: string, slice: Record<string, unknown>, name = 'slice.json'): string {
  const file = join(dir, name);
  writeFileSync(file, `${JSON.stringify({ base: 'HEAD', spine: 'integrator', ...slice }, null, 2)}\n`);
  return file;
}

/** What a run's records say per ball, without what differs from run to run (times, commits, workers). */
export function receiptsOf(repo: string, slice: string, balls: string[]) {
  return balls.map((id) => {
    const result = readLeap<{ receipt: number; candidate: string; rounds: number; reason: string }>(
      repo,
      slice,
      id,
      'result.json',
    );
    const rounds = [];
    for (let n = 1; n <= 4; n++) {
      const r = readLeap<{
        receipt: number | null;
        candidate: string | null;
        changed: string[];
        reason: string;
        proof: unknown;
      }>(repo, slice, id, `round-${n}.json`);
      if (r === null) break;
      rounds.push({ receipt: r.receipt, candidate: r.candidate, changed: r.changed, reason: r.reason, proof: r.proof });
    }
    return {
      id,
      receipt: result?.receipt,
      candidate: result?.candidate,
      rounds: result?.rounds,
      reason: result?.reason,
      roundRecords: rounds,
    };
  });
}

/** A slice run by the engine in process with the bullmq runner (builder b, reviewers r1 and r2); its progress lines. */
export function runQueued(
  redis: string,
  file: string,
  repo: string,
  agents: string,
  options: {
    jobs?: number;
    env?: NodeJS.ProcessEnv;
    priority?: number;
    builder?: string;
    reviewers?: string[];
    alternates?: string[];
  } = {},
): { summary: ReturnType<typeof runSlice>; lines: string[] } {
  const lines: string[] = [];
  const summary = runSlice({
    file,
    cwd: repo,
    env: options.env ?? testEnv(),
    jobs: options.jobs,
    agentsFile: agents,
    builder: options.builder ?? 'b',
    reviewers: options.reviewers ?? ['r1', 'r2'],
    ...(options.alternates === undefined ? {} : { alternates: options.alternates }),
    progress: (l) => lines.push(l),
    createRunner: (c) =>
      createBullmqRunner({
        redis,
        repoRoot: c.repoRoot,
        stateDir: c.stateDir,
        env: c.env,
        priority: options.priority,
        say: (l) => lines.push(l),
      }),
  });
  return { summary, lines };
}

/** The same slice run by the local runner in another clone of `remote`: the clone and the summary. */
export async function runLocal(
  remote: string,
  file: string,
  agents: string,
  jobs: number,
): Promise<{
  repo: string;
  summary: Awaited<ReturnType<typeof runSlice>>;
}> {
  const repo = cloneOf(remote);
  const summary = await runSlice({
    file,
    cwd: repo,
    env: testEnv(),
    jobs,
    agentsFile: agents,
    builder: 'b',
    reviewers: ['r1', 'r2'],
  });
  return { repo, summary };
}

/** The tree of a slice's spine. */
export const spineTree = (repo: string, slice: string) => git(repo, 'rev-parse', `leap/${slice}/spine^{tree}`).trim();

/** The subjects of the spine's own commits (its merges), newest first. */
export const spineSubjects = (repo: string, slice: string) =>
  git(repo, 'log', '--first-parent', '--format=%s', `leap/${slice}/spine`).trim().split('\n');

/** A gate file for builders to wait on (the builder fixture's `wait_for`): not there until `openGate`. */
export const gateFile = (dir: string, name: string) => join(dir, `gate-${name}`);
export const openGate = (file: string) => writeFileSync(file, 'open\n');

/** Resolves with `check`'s first truthy value, polled; throws `what` once `ms` have passed without one (never hangs). */
export async function until<T>(what: string, check: () => T | Promise<T>, ms = 30_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`waited ${ms / 1000} s in vain for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The base of `twoBalls`. */
export const TWO_BALLS_BASE = { 'src/x.txt': 'old x\n' };

/** Two balls in `src/`: x writes X, y writes Y (after x when `after`, its proof then wanting both); builders waiting
 * `sleep` ms, and each builder of a ball in `gates` waiting until that file exists (`openGate`): a test holds a round
 * where it wants it without assuming how fast the machine is. */
export function twoBalls(
  dir: string,
  id: string,
  sleep: { x?: number; y?: number },
  after = false,
  gates: { x?: string; y?: string } = {},
) {
  const base = TWO_BALLS_BASE;
  const file = writeSlice(dir, {
    id,
    balls: [
      ball('x', ['src/x.txt'], base, { proof: { argv: contentProof({ 'src/x.txt': 'X\n' }) } }),
      ball('y', ['src/y.txt'], base, {
        deps: after ? ['x'] : [],
        proof: { argv: contentProof({ 'src/y.txt': 'Y\n', ...(after ? { 'src/x.txt': 'X\n' } : {}) }) },
      }),
    ],
  });
  const agents = writeAgents(dir, {
    x: {
      '*': {
        sleep_ms: sleep.x ?? 0,
        ...(gates.x === undefined ? {} : { wait_for: gates.x }),
        edits: [{ path: 'src/x.txt', content: 'X\n' }],
      },
    },
    y: {
      '*': {
        sleep_ms: sleep.y ?? 0,
        ...(gates.y === undefined ? {} : { wait_for: gates.y }),
        edits: [{ path: 'src/y.txt', content: 'Y\n' }],
      },
    },
  });
  return { file, agents };
}

/** A whole round request of a one-ball slice (ball `a`, scope `a.txt`) at the repository's HEAD, as the engine sends it. */
export function roundRequest(
  repo: string,
  slice: string,
  agent = 'b',
  extra: Partial<RoundRequest> = {},
): RoundRequest {
  const commit = git(repo, 'rev-parse', 'HEAD').trim();
  const spec = ball('a', ['a.txt'], { 'a.txt': 'a\n' }, { proof: { argv: contentProof({ 'a.txt': 'A\n' }) } });
  const definition = { id: slice, base: 'HEAD', spine: 'integrator', balls: [spec] };
  return {
    slice,
    ball: 'a',
    round: 1,
    commit,
    start: commit,
    agent,
    branch: `leap/${slice}/a`,
    definition,
    spec,
    prompt: 'build a',
    reviewers: ['r1', 'r2'],
    alternates: [],
    agentsFile: null,
    champion: null,
    checkMap: true,
    passed: [],
    timeoutMs: 60_000,
    authors: [],
    costLeftUsd: null,
    ...extra,
  } as RoundRequest;
}

/** A subcommand called in process, its output collected; a typed error's exit code and message as the bin prints them. */
export async function callCommand(command: Subcommand, argv: string[], cwd: string, env = testEnv()) {
  let stdout = '';
  let stderr = '';
  const io: SubcommandIo = {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    cwd,
    env,
    isTTY: false,
  };
  try {
    return { code: await command(argv, io), stdout, stderr };
  } catch (error) {
    const code = (error as { exitCode?: number }).exitCode;
    if (typeof code !== 'number') throw error;
    return { code, stdout, stderr: `${stderr}leap: ${(error as Error).message}\n` };
  }
}

/** A worker that beats every 200 ms: a drain is heard within one. */
export const beatEnv = () => testEnv({ LEAP_BULLMQ_HEARTBEAT_MS: '200' });

/** `leap workers --json`, which must exit 0. */
export async function workersView(redis: string): Promise<WorkersView> {
  const out = await callCommand(workersCommand, ['--redis', redis, '--json'], process.cwd(), beatEnv());
  assert.is(out.code, 0, out.stderr);
  return JSON.parse(out.stdout) as WorkersView;
}
