// Test helpers shared by every package: temp folders, temp git repos, bins, hostile titles.
import { execFileSync, spawn, type SpawnOptions } from 'node:child_process';
import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The monorepo root. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

const made: string[] = [];

/** What a child running sources under tsx needs for its coverage to count (tools/uvu.mjs keeps c8's folder apart). */
export const sourceCoverage = (): Record<string, string> =>
  process.env.LEAP_TEST_COVERAGE === undefined ? {} : { NODE_V8_COVERAGE: process.env.LEAP_TEST_COVERAGE };

/** A fresh temp folder (real path), removed by `cleanupTempDirs`. */
export function makeTempDir(prefix = 'leap-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** Remove every temp folder made so far. */
export function cleanupTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Run git in `cwd`; returns stdout, throws with stderr on failure. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A real git repository in a temp folder, with `files` in a first commit. */
export function makeGitRepo(options: { files?: Record<string, string>; prefix?: string } = {}): string {
  const dir = makeTempDir(options.prefix ?? 'leap-repo-');
  git(dir, 'init', '-q', '-b', 'main');
  // What three `git config` calls would write, without their three processes (hundreds of repositories a run).
  appendFileSync(
    join(dir, '.git', 'config'),
    '[user]\n\tname = Leap Test\n\temail = leap@test.invalid\n[commit]\n\tgpgsign = false\n',
  );
  const files = options.files ?? { 'README.md': '# test repo\n' };
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

/** `LEAP_TEST_CACHE`, else `$XDG_CACHE_HOME/leap-test`, else `~/.cache/leap-test`: never under the repository or /tmp. */
export const TEST_CACHE =
  process.env.LEAP_TEST_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'leap-test');

/**
 * `dir`'s node_modules, holding the npm packages `specs`: installed the first time, reused once `whole` says so.
 * Installed beside its place and renamed into it, so a killed install never leaves a half folder that looks whole.
 */
export function npmInstalled(dir: string, specs: readonly string[], whole: (modules: string) => boolean): string {
  const modules = join(dir, 'node_modules');
  if (whole(modules)) return modules;
  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.installing-`);
  try {
    writeFileSync(join(staging, 'package.json'), '{"private": true}\n');
    // Bounded: an install stuck on the network fails its test file in 10 minutes, not the whole CI run.
    execFileSync(
      'npm',
      ['install', '--prefix', staging, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', ...specs],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
        timeout: 600_000,
        killSignal: 'SIGKILL',
      },
    );
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return modules;
}

/** What a finished process left. */
export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * How long a command run by `runCommand` may take before it is killed (LEAP_TEST_COMMAND_LIMIT_S, in seconds;
 * default 600): a hang in one test (an install waiting on the network, a leaf that never ends) fails that
 * test with a clear message instead of holding the whole suite until CI's own limit.
 */
export function commandLimitMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.LEAP_TEST_COMMAND_LIMIT_S;
  const seconds = raw === undefined || raw === '' ? 600 : Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new Error(`LEAP_TEST_COMMAND_LIMIT_S must be a positive number of seconds, got ${JSON.stringify(raw)}`);
  return seconds * 1000;
}

/**
 * Spawn `command` (no shell) and collect its result; `input` goes to stdin. Past `limitMs` (default
 * commandLimitMs()) the command is killed (SIGKILL) and the result says so on its stderr, signal SIGKILL.
 */
export function runCommand(
  command: string,
  args: string[],
  options: SpawnOptions & { input?: string | Buffer; limitMs?: number } = {},
): Promise<RunResult> {
  const { input, limitMs = commandLimitMs(), ...spawnOptions } = options;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { ...spawnOptions, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let overdue = false;
    const timer = setTimeout(() => {
      overdue = true;
      child.kill('SIGKILL');
    }, limitMs);
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const note = overdue
        ? `\nrunCommand: ${command} ${args.join(' ').slice(0, 200)} did not end within ${limitMs / 1000} s and was killed (LEAP_TEST_COMMAND_LIMIT_S)\n`
        : '';
      resolvePromise({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8') + note,
      });
    });
    child.stdin?.on('error', () => {});
    child.stdin?.end(input ?? '');
  });
}

/** A command line as an agent plugin builds it (core's AgentInvocation). */
export interface Invocation {
  command: string;
  args: string[];
  stdin?: string;
  env?: Record<string, string | undefined>;
}

/**
 * Run an agent invocation the way a supervisor would: no shell, its stdin written, its variables
 * merged over ours (`undefined` removes one), with `pathFirst` (stand-in CLIs) first on PATH.
 */
export function runInvocation(
  invocation: Invocation,
  options: { pathFirst?: string; env?: Record<string, string | undefined>; cwd?: string } = {},
): Promise<RunResult> {
  const path = options.pathFirst === undefined ? process.env.PATH : `${options.pathFirst}:${process.env.PATH ?? ''}`;
  const merged: Record<string, string | undefined> = { ...process.env, PATH: path, ...options.env, ...invocation.env };
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  return runCommand(invocation.command, invocation.args, {
    env: merged as NodeJS.ProcessEnv,
    cwd: options.cwd,
    input: invocation.stdin ?? '',
  });
}

/** Run a built bin with the current Node. */
export function runBin(
  bin: string,
  args: string[],
  options: SpawnOptions & { input?: string | Buffer } = {},
): Promise<RunResult> {
  return runCommand(process.execPath, [bin, ...args], options);
}

/** The built bin `packages/PKG/dist/bin/NAME.cjs`. */
export function binPath(pkg: string, name: string): string {
  return join(repoRoot, 'packages', pkg, 'dist', 'bin', `${name}.cjs`);
}

/** A script of `scripts/` (the drop-in replacements). */
export function scriptPath(name: string): string {
  return join(repoRoot, 'scripts', name);
}

/**
 * Run COMMAND... as a harness would: from a bash that lives on after it returns (`exec sleep 600`), in a process
 * group of its own (`group`, to SIGKILL whole as a harness ending its task does). Resolves once the command
 * returned, with its exit code and what it printed on stdout.
 */
export function fromHarness(
  command: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ group: number; code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', '"$@"; echo "returned $?"; exec sleep 600', 'harness', ...command], {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
      const m = /returned (\d+)\n/.exec(out);
      if (m !== null) resolve({ group: child.pid as number, code: Number(m[1]), out: out.slice(0, m.index) });
    });
    child.on('error', reject);
  });
}

/** True when `pid` runs and is not a zombie, judged from /proc (a zombie answers kill -0). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** The live processes (not zombies) whose argument vector `match` accepts, read from /proc/PID/cmdline. */
export function processesWhoseArgv(match: (argv: string[]) => boolean): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (match(readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')) && isAlive(Number(entry)))
        found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** The lifeline of process `pid` (@leap/supervise's lifeline.ts: `sh -c ... leap-lifeline NODE leap-stop orphans PID`), and the sweep it runs. */
export function lifelineOf(pid: number): number[] {
  return processesWhoseArgv(
    (argv) => (argv.includes('leap-lifeline') || argv.includes('orphans')) && argv.includes(String(pid)),
  );
}

/**
 * Poll `check` every 10 ms until it returns a truthy value, and return it. Past `ms` it throws, naming
 * `what` (else the check's source): a test that goes on after a wait that never came fails later, far
 * from the cause, and a loaded machine makes that look like a different bug.
 */
export async function waitFor<T>(check: () => T, ms = 5000, what?: string): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end)
      throw new Error(
        `waitFor: ${what ?? `${check}`.replace(/\s+/g, ' ').slice(0, 300)}: still not so after ${ms} ms (last value ${JSON.stringify(value)})`,
      );
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A seeded PRNG (mulberry32), so generated inputs are reproducible. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  '$(rm -rf /)',
  '`id`',
  '"',
  "'",
  "it's",
  '\\',
  '\\n',
  '%s',
  '%d',
  '\t',
  '🦀',
  '👩‍💻',
  'שלום עולם',
  'مرحبا',
  '\u202Eevil\u202C',
  '${HOME}',
  '$1',
  '!!',
  '&&',
  ';',
  '|',
  '>',
  '<',
  '*',
  '?',
  '[x]',
  '<!-- not a marker -->',
  'é',
  'ß',
  '中文',
  ' ',
  '  ',
  '--step',
  '-m',
  '#',
  '~',
  '{}',
  '(a)',
];

/** Generated step titles that break shells: every one is distinct, non-empty and has no line break. */
export function hostileTitles(count: number, seed = 7): string[] {
  const random = prng(seed);
  const titles = new Set<string>();
  titles.add('x'.repeat(1999) + '$');
  titles.add('Add the user\'s "quoted" $(whoami) `date` \\ %s\ttab 🦀 שלום');
  while (titles.size < count) {
    const n = 1 + Math.floor(random() * 6);
    let title = `step ${titles.size}`;
    for (let i = 0; i < n; i++) title += PIECES[Math.floor(random() * PIECES.length)] ?? '';
    titles.add(title.replace(/\s+$/u, ''));
  }
  return [...titles].slice(0, count);
}
export * from './stand-in-cli.js';
export * from './model-server.js';
export * from './suite.js';
export * from './hostile-probe.js';
