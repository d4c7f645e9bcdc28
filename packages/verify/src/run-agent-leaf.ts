// Run an agent as a supervised leaf: the supervisor (@leap/supervise's `supervise`) runs in this process,
// with the prompt on the leaf's stdin and its stdout and stderr in NAME.out and NAME.err; NAME.pid,
// NAME.exit and the launch and exit events are the same as `leap-supervise NAME CMD...` leaves.
// In process, because a Node supervisor per leaf costs a Node start-up each (100 ms here), and a jury
// starts three at once on two cores. What a separate supervisor adds, surviving a kill of its parent,
// is leap-detach's job: a caller that needs it launches the whole command detached.
import type { AgentAnswer, AgentOptions, AgentPlugin } from '@leap/core';
import { LeapError, checkLeafName, readFileIfExists, statePaths } from '@leap/core';
import { supervise, type SuperviseResult } from '@leap/supervise';

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
 * Launch the agent under a supervisor and wait for it and everything it started to end. A TERM,
 * INT, HUP or QUIT to this process meanwhile ends the leaf (`killed-signal`) instead of this process.
 */
export async function runAgentLeaf(leaf: AgentLeafOptions): Promise<AgentLeafResult> {
  const name = checkLeafName(leaf.name);
  const invocation = leaf.agent.buildInvocation(leaf.prompt, leaf.options);
  const env: Record<string, string | undefined> = { ...leaf.env, VERI_STATE_DIR: leaf.stateDir, ...invocation.env };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const paths = statePaths(leaf.stateDir);
  // NAME.pid is the supervisor's lock (a dead holder's is taken over, a live one refuses); once it holds it,
  // the supervisor replaces a stale NAME.exit and empties NAME.out and NAME.err, as a launch line's `>` would.
  let run: SuperviseResult;
  try {
    run = await supervise({
      name, command: invocation.command, args: invocation.args, env: env as NodeJS.ProcessEnv, cwd: leaf.options.cwd,
      handleSignals: true, io: { input: invocation.stdin ?? '', stdoutFile: paths.out(name), stderrFile: paths.err(name) },
    });
  } catch (error) {
    // Refused before the leaf could start: a live supervisor holds NAME (its files are left alone), or the state folder is unusable.
    if (!(error instanceof LeapError)) throw error;
    return { name, code: error.exitCode, status: 'failed-start', stdout: '', stderr: '', answer: null, failure: `${leaf.agent.name} could not be supervised: ${error.message}` };
  }
  const stdout = readFileIfExists(paths.out(name)) ?? '';
  const stderr = readFileIfExists(paths.err(name)) ?? '';
  const result: AgentLeafResult = { name, code: run.code, status: run.status, stdout, stderr, answer: null, failure: null };
  if (run.code !== 0 || run.status !== 'exited') {
    result.failure = describeFailure(leaf.agent, invocation.command, run, stderr);
    return result;
  }
  try {
    result.answer = leaf.agent.parseAnswer(stdout);
  } catch (error) {
    result.failure = `could not read ${leaf.agent.name}'s answer: ${(error as Error).message}`;
  }
  return result;
}

function describeFailure(agent: AgentPlugin, command: string, run: SuperviseResult, stderr: string): string {
  const { code, status } = run;
  if (status === 'failed-start') {
    const why = code === 127 ? 'was not found' : code === 126 ? 'is not executable' : `could not be supervised: ${run.error ?? 'unknown error'}`;
    return `${agent.name} could not start: ${command} ${why} (${status}, code ${code})`;
  }
  if (status.startsWith('killed') || status === 'refused-stop') return `${agent.name} was stopped by its supervisor (${status})`;
  const last = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '').at(-1);
  return `${agent.name} exited with code ${code} (${status})${last === undefined ? '' : `: ${last}`}`;
}
