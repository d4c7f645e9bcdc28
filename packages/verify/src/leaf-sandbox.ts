// Whether, and how, the leaves a command starts are sandboxed (CONTRACT section 13): the setting (`--sandbox`,
// LEAP_SANDBOX, a project's config), the check that a sandbox can be made at all, and the spec of each kind of
// leaf: an agent as a writer or a reader of its tree, a suite run as a writer with the user's environment.
import { UsageError, type AgentPlugin } from '@leap/core';
import { checkSandbox, type SandboxRole, type SandboxSpec } from '@leap/supervise';
import { scratchReads } from './scratch-tree.js';

/** On (the default) or off. */
export type SandboxSetting = 'on' | 'off';

/** What a command that starts leaves knows once it decided: bwrap's path, or null when sandboxing is off. */
export interface SandboxChoice {
  bwrap: string | null;
  /** The suite runs' network (`testNetwork`); loopback always works. */
  testNetwork: boolean;
}

/**
 * The setting: `flag` (`--sandbox on|off`, or a project config's `sandbox`) wins, else LEAP_SANDBOX (`off`
 * turns it off; `on`, `writer`, `reader` leave it on: the command knows each leaf's role), else on.
 */
export function sandboxSetting(flag: string | undefined, env: NodeJS.ProcessEnv, what = '--sandbox'): SandboxSetting {
  if (flag !== undefined) {
    if (flag !== 'on' && flag !== 'off') throw new UsageError(`${what} must be on or off, got ${JSON.stringify(flag)}`);
    return flag;
  }
  const value = env.LEAP_SANDBOX;
  if (value === undefined || value === '') return 'on';
  if (value === 'off') return 'off';
  if (value === 'on' || value === 'writer' || value === 'reader') return 'on';
  throw new UsageError(`LEAP_SANDBOX must be on, writer, reader or off, got ${JSON.stringify(value)}`);
}

/**
 * Decide once per command, before its first leaf: with the sandbox on, bwrap must be installed and able to
 * make its namespaces, else a SandboxUnavailableError (exit 2, one line naming the cause and
 * `apt-get install bubblewrap`, or `--sandbox off`).
 */
export function chooseSandbox(setting: SandboxSetting, env: NodeJS.ProcessEnv, testNetwork = false): SandboxChoice {
  return { bwrap: setting === 'off' ? null : checkSandbox(env), testNetwork };
}

/**
 * An agent's leaf: a writer of `tree` (developer, planner, builder) or a reader of a throwaway copy of it
 * (verifier, reviewer, juror), with what its plugin and its agents-file entry need (config folders, variables,
 * paths, network). `env` is the leaf's environment, where a plugin reads its own settings (`CODEX_HOME`).
 */
export function agentSandbox(agent: AgentPlugin, role: SandboxRole, tree: string, env: NodeJS.ProcessEnv, stateDir?: string): SandboxSpec {
  const needs = agent.sandbox?.(env) ?? {};
  const spec: SandboxSpec = {
    role,
    tree,
    network: needs.network ?? true,
    agentPaths: [...(needs.agentPaths ?? [])],
    passEnv: [...(needs.passEnv ?? [])],
    read: [...(needs.read ?? [])],
    write: [...(needs.write ?? [])],
  };
  if (stateDir !== undefined) spec.hide = [stateDir];
  return spec;
}

/**
 * The toolchain's own run of the project's code (a ground-truth suite run, a proof): a writer of `tree` with
 * the user's whole environment, network off unless the project says `testNetwork`, the state folder absent.
 * In a scratch tree (withScratchTree) it reads what the tree's links lead to; ~/.cache is a throwaway layer there.
 */
export function suiteSandbox(tree: string, stateDir: string | undefined, network: boolean): SandboxSpec {
  const hide = stateDir === undefined ? [] : [stateDir];
  const spec: SandboxSpec = { role: 'writer', tree, inheritEnv: true, network, hide };
  const scratch = scratchReads(tree);
  return scratch === undefined ? spec : { ...spec, ...scratch, homeCaches: 'throwaway' };
}
