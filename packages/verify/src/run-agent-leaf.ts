// Run an agent as a supervised leaf: `leap-supervise NAME CMD ARGS...`, the prompt on its stdin,
// its answer read from its stdout; the supervisor's exit file says how it ended.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { AgentAnswer, AgentOptions, AgentPlugin } from '@leap/core';
import { InternalError, checkLeafName, parseKeyValues, statePaths } from '@leap/core';
import { childProcess } from './lazy-builtins.js';

/** The built `leap-supervise` bin of @leap/supervise, found through the package's own manifest. */
export function superviseBinPath(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@leap/supervise/package.json');
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> }).bin?.['leap-supervise'] ?? 'dist/bin/leap-supervise.js';
  const path = join(dirname(manifest), bin);
  if (!existsSync(path)) throw new InternalError(`the supervisor is not built: ${path} is missing (run npm run build in packages/supervise)`);
  return path;
}

/** One supervised agent launch. */
export interface AgentLeafOptions {
  /** The leaf name (`verify-green`, `review-1a2b3c4d-openai`). */
  name: string;
  agent: AgentPlugin;
  prompt: string;
  options: AgentOptions;
  /** The state folder the supervisor writes NAME.pid and NAME.exit into. */
  stateDir: string;
  env: NodeJS.ProcessEnv;
  /** Override the supervisor bin (tests). */
  superviseBin?: string;
}

/** How the leaf ended and what it answered. */
export interface AgentLeafResult {
  name: string;
  /** The supervisor's exit code: the agent's own, or 2 when it was killed, 126/127 when it could not start. */
  code: number;
  /** The supervisor's status (`exited`, `killed-timeout`, `failed-start`...). */
  status: string;
  stdout: string;
  stderr: string;
  /** The agent's answer, when it exited 0 and its output was that CLI's format. */
  answer: AgentAnswer | null;
  /** Why there is no answer. */
  failure: string | null;
}

/**
 * Launch the agent through the supervisor and wait for it. The leaf's stdout and stderr are also
 * kept as NAME.out and NAME.err in the state folder, as a launch line's redirections would.
 */
export async function runAgentLeaf(leaf: AgentLeafOptions): Promise<AgentLeafResult> {
  const name = checkLeafName(leaf.name);
  const invocation = leaf.agent.buildInvocation(leaf.prompt, leaf.options);
  const env: Record<string, string | undefined> = { ...leaf.env, VERI_STATE_DIR: leaf.stateDir, ...invocation.env };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const bin = leaf.superviseBin ?? superviseBinPath();
  const paths = statePaths(leaf.stateDir);
  // As a launch line does (rm -f NAME.exit NAME.pid): a file left by an earlier launch must not be read as this one's.
  mkdirSync(leaf.stateDir, { recursive: true });
  rmSync(paths.exit(name), { force: true });
  rmSync(paths.pid(name), { force: true });
  const ran = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    const child = childProcess().spawn(process.execPath, [bin, name, invocation.command, ...invocation.args], {
      cwd: leaf.options.cwd,
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 2, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    // An agent that never reads its stdin must not fail the launch.
    child.stdin.on('error', () => {});
    child.stdin.end(invocation.stdin ?? '');
  });
  writeFileSync(paths.out(name), ran.stdout);
  writeFileSync(paths.err(name), ran.stderr);
  const status = readStatus(paths.exit(name), name, ran.stderr);
  const result: AgentLeafResult = { name, code: ran.code, status, stdout: ran.stdout, stderr: ran.stderr, answer: null, failure: null };
  if (ran.code !== 0) {
    result.failure = describeFailure(leaf.agent, invocation.command, ran.code, status, ran.stderr);
    return result;
  }
  try {
    result.answer = leaf.agent.parseAnswer(ran.stdout);
  } catch (error) {
    result.failure = `could not read ${leaf.agent.name}'s answer: ${(error as Error).message}`;
  }
  return result;
}

/** Resolve once every leaf's NAME.pid exists (its supervisor is up), or after `ms`; for work that should not slow their start. */
export async function whenLaunched(stateDir: string, names: readonly string[], ms = 1000): Promise<void> {
  const paths = statePaths(stateDir);
  const end = Date.now() + ms;
  while (Date.now() < end && !names.every((name) => existsSync(paths.pid(name)))) await new Promise((r) => setTimeout(r, 5));
}

// The exit file's `status=`, else the supervisor's status line on stderr, else `unknown`.
function readStatus(exitFile: string, name: string, stderr: string): string {
  try {
    const status = parseKeyValues(readFileSync(exitFile, 'utf8')).values.status;
    if (status !== undefined && status !== '') return status;
  } catch {
    // No exit file: fall back to the status line.
  }
  const prefix = `supervise[${name}]: `;
  const line = stderr.split('\n').reverse().find((l) => l.startsWith(prefix));
  return line === undefined ? 'unknown' : line.slice(prefix.length).trim();
}

function describeFailure(agent: AgentPlugin, command: string, code: number, status: string, stderr: string): string {
  if (status === 'failed-start') return `${agent.name} could not start: ${command} ${code === 127 ? 'was not found' : 'is not executable'} (${status}, code ${code})`;
  if (status.startsWith('killed') || status === 'refused-stop') return `${agent.name} was stopped by its supervisor (${status})`;
  const last = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('supervise[')).at(-1);
  return `${agent.name} exited with code ${code} (${status})${last === undefined ? '' : `: ${last}`}`;
}
