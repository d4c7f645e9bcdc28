// Helpers of the engine's tests: a repository, a slice file of balls whose proofs check file contents,
// an agents file of command agents (a builder that makes the edits its plan gives, reviewers by mode).
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { git, makeGitRepo, makeTempDir } from '@leap/test-utils';
import type { SubcommandIo } from '@leap/core';
import { sliceCommand } from '../src/cli.js';

export const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** A proof that passes when every file has exactly the given content (`sh` and `cmp`: no node process to start). */
export function contentProof(expected: Record<string, string>): string[] {
  const script =
    'while [ $# -gt 0 ]; do printf %s "$2" | cmp -s - "$1" || { printf \'want %s in %s\\n\' "$2" "$1"; exit 1; }; shift 2; done; echo ok';
  return ['/bin/sh', '-c', script, 'proof', ...Object.entries(expected).flat()];
}

export const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** One ball: its scope with hashes taken from `files` at base (null for a file the ball creates). */
export function ball(id: string, scope: string[], base: Record<string, string>, extra: Record<string, unknown> = {}) {
  return {
    id,
    goal: `ball ${id} does its part`,
    spec: `Write the files of ball ${id}.`,
    scope: scope.map((path) => ({ path, sha256: base[path] === undefined ? null : sha(base[path] as string) })),
    proof: { argv: contentProof({}) },
    rollback: 'restore the scope to base',
    deps: [] as string[],
    ...extra,
  };
}

/** A repository holding `files`, and a folder outside it for the slice file, agents and plans. */
export function setupRepo(files: Record<string, string>) {
  const repo = makeGitRepo({ files });
  const dir = makeTempDir('leap-slice-test-');
  return { repo, dir };
}

/** Write the slice file; returns its path. */
export function writeSlice(dir: string, slice: Record<string, unknown>, name = 'slice.json'): string {
  const file = join(dir, name);
  writeFileSync(file, `${JSON.stringify({ base: 'HEAD', spine: 'integrator', ...slice }, null, 2)}\n`);
  return file;
}

/** What a builder does, per ball and round ("*": every round). */
export type Plan = Record<
  string,
  Record<
    string,
    {
      edits?: { path: string; content?: string; append?: string; delete?: boolean }[];
      sleep_ms?: number;
      here?: string;
      wait_for?: string;
      say?: string;
      exit?: number;
      cost_usd?: number;
    }
  >
>;

/**
 * An agents file: builder `b` (family fb) following `plan`; reviewers r1, r2, r3 (families f1..f3) that pass,
 * `garbage` (fg), `silent` (fs), `same` (fb, the builder's family), `refuser` (fr); `extra` adds or overrides.
 */
export function writeAgents(
  dir: string,
  plan: Plan,
  extra: Record<string, unknown> = {},
  reviewEnv: Record<string, string> = {},
): string {
  const planFile = join(dir, 'plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  const prompts = join(dir, 'prompts');
  mkdirSync(prompts, { recursive: true });
  // Each juror runs in a sandbox (a reader of a throwaway copy): the folder it records its prompt in is its entry's to write.
  const reviewer = (name: string, family: string, mode: string) => ({
    plugin: 'command',
    family,
    command: [process.execPath, join(fixtures, 'reviewer.mjs')],
    env: { REVIEW_MODE: mode, REVIEWER_NAME: name, PROMPT_DIR: prompts, ...reviewEnv },
    paths: { write: [prompts] },
  });
  const agents = {
    // The builder runs in a sandbox (a writer of its ball's worktree): its plan, prompts and rendezvous files lie in `dir`, its entry's to write.
    b: {
      plugin: 'command',
      family: 'fb',
      command: [process.execPath, join(fixtures, 'builder.mjs')],
      env: { BUILDER_PLAN: planFile, PROMPT_DIR: prompts },
      paths: { write: [dir] },
    },
    r1: reviewer('r1', 'f1', 'pass'),
    r2: reviewer('r2', 'f2', 'pass'),
    r3: reviewer('r3', 'f3', 'pass'),
    garbage: reviewer('garbage', 'fg', 'garbage'),
    silent: reviewer('silent', 'fs', 'silent'),
    same: reviewer('same', 'fb', 'pass'),
    refuser: reviewer('refuser', 'fr', 'refuse'),
    ...extra,
  };
  const file = join(dir, 'agents.json');
  writeFileSync(file, JSON.stringify({ agents }, null, 2));
  return file;
}

/** The environment of an engine run: no VERI_* of the caller's run leaks in. */
export function engineEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const key of Object.keys(env)) if (key.startsWith('VERI_') && !(key in extra)) delete env[key];
  return env;
}

/** Run `leap slice ARGV...` in process, in `cwd`. */
export async function leapSlice(cwd: string, argv: string[], env: NodeJS.ProcessEnv = engineEnv()) {
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
    const code = await sliceCommand(argv, io);
    return { code, stdout, stderr };
  } catch (error) {
    const code = (error as { exitCode?: number }).exitCode;
    if (typeof code !== 'number') throw error;
    return { code, stdout, stderr: `${stderr}leap: ${(error as Error).message}\n` };
  }
}

/** The worktrees git knows besides the main one. */
export function extraWorktrees(repo: string): string[] {
  return git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice(9))
    .filter((p) => p !== repo);
}

/** The bytes of `path` on `rev`, or null when it is not there. */
export function showFile(repo: string, rev: string, path: string): string | null {
  try {
    return git(repo, 'show', `${rev}:${path}`);
  } catch {
    return null;
  }
}

/** A record under `.leap/SLICE/`, parsed, or null. */
export function readLeap<T = Record<string, unknown>>(repo: string, ...parts: string[]): T | null {
  const file = join(repo, '.leap', ...parts);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T) : null;
}

/** The events of the repository's log of one kind. */
export function eventsOf(repo: string, kind: string): Record<string, unknown>[] {
  const file = join(repo, '.tdd', 'events.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => e.event === kind);
}

/** The `launch` events of leaves whose name starts with `prefix`. */
export function launches(repo: string, prefix: string): string[] {
  return eventsOf(repo, 'launch')
    .map((e) => e.leaf as string)
    .filter((l) => l.startsWith(prefix));
}

/** The stand-in claude's moves (fixtures/claude.mjs), per ball and round ("*": every round). */
export type ClaudePlan = Record<
  string,
  Record<
    string,
    { edits?: { path: string; content: string }[]; say?: string; dry?: 429 | 529 | 'quota'; claim?: boolean }
  >
>;

/** A `claude` agent whose CLI is the stand-in, following `plan`; each launch is logged in DIR/NAME.log. */
export function claudeEntry(dir: string, name: string, plan: ClaudePlan, extra: Record<string, unknown> = {}) {
  const planFile = join(dir, `${name}-plan.json`);
  writeFileSync(planFile, JSON.stringify(plan));
  const bin = join(dir, name);
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  writeFileSync(
    bin,
    `#!/bin/sh\nCLAUDE_PLAN=${q(planFile)} CLAUDE_LOG=${q(join(dir, `${name}.log`))} exec ${q(process.execPath)} ${q(join(fixtures, 'claude.mjs'))} "$@"\n`,
  );
  chmodSync(bin, 0o755);
  return { plugin: 'claude', bin, paths: { write: [dir] }, ...extra };
}

/** How often the stand-in `name` was launched (one line per launch: "BALL ROUND"). */
export function launchesOf(dir: string, name: string): string[] {
  const file = join(dir, `${name}.log`);
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter((l) => l !== '')
    : [];
}
