// Shared by the view's tests: recorded logs in real git repositories, an in-process io, the built
// umbrella bin (rebuilt when older than this package's sources), and a real run of the demo.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SubcommandIo } from '@leap/core';
import { makeGitRepo, makeTempDir, repoRoot } from '@leap/test-utils';

const HERE = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = join(HERE, 'fixtures');
export const OUTPUT = join(HERE, '..', 'test-output');

/** The text of a recorded log of test/fixtures. */
export function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

/** A git repository whose state folder holds `files` (paths under `.tdd/` or `.leap/`, or anywhere). */
export function repoWith(files: Record<string, string> = {}): string {
  const dir = makeGitRepo({ files: { 'README.md': '# r\n' } });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** An environment without the caller's run variables, so a test sees only what it sets. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(VERI_|LEAP_|NO_COLOR|FORCE_COLOR|COLUMNS)/.test(k)) env[k] = v;
  return { ...env, ...extra };
}

/** An in-process io whose output is collected. */
export function captureIo(
  cwd: string,
  env: NodeJS.ProcessEnv = cleanEnv(),
  isTTY = false,
): { io: SubcommandIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    io: {
      cwd,
      env,
      isTTY,
      stdout: (t) => {
        out += t;
      },
      stderr: (t) => {
        err += t;
      },
    },
    out: () => out,
    err: () => err,
  };
}

function newest(dir: string): number {
  let t = 0;
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const s = statSync(join(dir, name));
    if (s.isFile()) t = Math.max(t, s.mtimeMs);
  }
  return t;
}

let built: string | undefined;

/** The umbrella `leap` bin, built again first when it is missing or older than the view's sources. */
export function leapBin(): string {
  if (built !== undefined) return built;
  const bin = join(repoRoot, 'packages', 'cli', 'dist', 'bin', 'leap.cjs');
  const sources = Math.max(newest(join(HERE, '..', 'src')), newest(join(repoRoot, 'packages', 'core', 'src')));
  if (!existsSync(bin) || statSync(bin).mtimeMs < sources) {
    execFileSync('npm', ['run', 'build', '-w', '@leap/cli'], { cwd: repoRoot, stdio: 'ignore' });
  }
  built = bin;
  return bin;
}

/** A real run of `leap demo` (the conductor drives a sample issue end to end with scripted agents) in a fresh folder. */
export function runDemo(): string {
  const dir = join(makeTempDir('leap-view-demo-'), 'repo');
  const r = spawnSync(process.execPath, [leapBin(), 'demo', '--dir', dir], { encoding: 'utf8', env: cleanEnv() });
  if (r.status !== 0) throw new Error(`leap demo exited ${r.status}: ${r.stdout}${r.stderr}`);
  return dir;
}

/**
 * A real run of `leap slice run` through the umbrella bin: three balls built by a scripted command builder
 * (test/fixtures/slice-builder.mjs) and judged by two scripted reviewers of other families: `hello` passes,
 * `world` (after hello) fails its proof in round 1 and passes in round 2, `stray` edits outside its scope
 * and is refused. Returns the repository and the engine's exit code (1: the slice is refused).
 */
export function runSlice(): { repo: string; code: number | null } {
  // (Outcomes are the engine's: on a loaded machine a reviewer may miss its time and a ball be held; the
  // tests hold the view against the engine's own records, and against the one fixed outcome, stray's -1.)
  const repo = makeGitRepo({ files: { 'README.md': '# greet\n' } });
  const dir = makeTempDir('leap-view-slice-');
  const check = (path: string, want: string) =>
    `const fs=require('fs');process.exit(fs.existsSync(${JSON.stringify(path)})&&fs.readFileSync(${JSON.stringify(path)},'utf8')===${JSON.stringify(want)}?0:1)`;
  const ball = (id: string, path: string, want: string, deps: string[]) => ({
    id,
    goal: `write ${path}`,
    spec: `${path} holds ${JSON.stringify(want)}`,
    scope: [{ path, sha256: null }],
    proof: { argv: [process.execPath, '-e', check(path, want)] },
    rollback: 'restore the scope',
    deps,
  });
  const slice = {
    id: 'greet',
    base: 'HEAD',
    spine: 'integrator',
    balls: [
      ball('hello', 'hello.txt', 'hello\n', []),
      ball('world', 'world.txt', 'world\n', ['hello']),
      ball('stray', 'stray.txt', 'stray\n', []),
    ],
  };
  writeFileSync(join(dir, 'slice.json'), JSON.stringify(slice, null, 2));
  const plan = {
    hello: { '*': { 'hello.txt': 'hello\n' } },
    world: { 1: { 'world.txt': 'wrld\n' }, '*': { 'world.txt': 'world\n' } },
    stray: { '*': { 'stray.txt': 'stray\n', 'README.md': '# taken over\n' } },
  };
  writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
  const reviewer = (family: string) => ({
    plugin: 'command',
    family,
    command: [process.execPath, join(FIXTURES, 'slice-reviewer.mjs')],
  });
  // The builder runs in a sandbox (a writer of its ball's worktree): its plan lies in `dir`, its entry's to read.
  const builder = {
    plugin: 'command',
    family: 'fb',
    command: [process.execPath, join(FIXTURES, 'slice-builder.mjs')],
    env: { BUILDER_PLAN: join(dir, 'plan.json') },
    paths: { read: [dir] },
  };
  writeFileSync(
    join(dir, 'agents.json'),
    JSON.stringify({ agents: { b: builder, r1: reviewer('f1'), r2: reviewer('f2') } }),
  );
  const r = spawnSync(
    process.execPath,
    [
      leapBin(),
      'slice',
      'run',
      join(dir, 'slice.json'),
      '--agents',
      join(dir, 'agents.json'),
      '--builder',
      'b',
      '--reviewers',
      'r1,r2',
      '--jobs',
      '2',
    ],
    {
      cwd: repo,
      encoding: 'utf8',
      env: cleanEnv(),
    },
  );
  if (r.status !== 1 && r.status !== 3)
    throw new Error(`leap slice run exited ${r.status}, expected 1 (refused) or 3 (held): ${r.stdout}${r.stderr}`);
  return { repo, code: r.status };
}

/** What the engine itself recorded of each ball (`.leap/SLICE/BALL/result.json` and `round-N.json`), to hold the view against. */
export function engineRecords(
  repo: string,
  slice: string,
): Record<string, { receipt: number; merged: boolean; rounds: Array<number | null> }> {
  const out: Record<string, { receipt: number; merged: boolean; rounds: Array<number | null> }> = {};
  const dir = join(repo, '.leap', slice);
  for (const ball of readdirSync(dir).filter((n) => existsSync(join(dir, n, 'result.json')))) {
    const result = JSON.parse(readFileSync(join(dir, ball, 'result.json'), 'utf8')) as {
      receipt: number;
      merged: string | null;
    };
    const rounds = readdirSync(join(dir, ball))
      .filter((n) => /^round-\d+\.json$/.test(n))
      .sort()
      .map((n) => (JSON.parse(readFileSync(join(dir, ball, n), 'utf8')) as { receipt: number | null }).receipt);
    out[ball] = { receipt: result.receipt, merged: result.merged !== null, rounds };
  }
  return out;
}

// What each kind requires beyond the common fields, so a test writes only the fields it is about.
const REQUIRED: Record<string, Record<string, unknown>> = {
  launch: { actor: null, phase: null, attempt: null, pid: 1, cmd: [] },
  exit: { code: 0, status: 'exited', duration_ms: 0 },
  usage: { agent: null, family: null, model: null, input_tokens: null, output_tokens: null, cost_usd: null },
  verdict: { phase: 'red', verdict: 'PASS', reason: '' },
  mark: { name: 'm', anchor: null },
  tick: { action: 'tick', title: null },
  bail: { cause: 'agent-failed', class: 'process' },
  stop: { mode: null, action: 'requested' },
  ball: { state: 'ready' },
  round: { round: 1 },
  receipt: { value: 0, candidate: null, evidence: '' },
  review: { candidate: '', reviewer: null, family: null, verdict: 'none', value: 0 },
  merge: { commit: '', candidate: '' },
};

/** One valid event's line: `fields` over what its kind requires (time, issue, step and skill commit null). */
export const eventLine = (fields: Record<string, unknown> & { event: string }): string =>
  `${JSON.stringify({ ts: '2026-11-30T12:00:00.000Z', issue: null, step: null, skill_commit: null, ...REQUIRED[fields.event], ...fields })}\n`;
