// Whether and how a command's leaves are sandboxed (CONTRACT section 13): the setting, the check, each leaf's spec.
import { UsageError, type AgentPlugin } from '@leap/core';
import { checkSandbox, type SandboxRole, type SandboxSpec } from '@leap/supervise';
import { sandboxFlag } from './cli-args.js';
import { scratchReads } from './scratch-tree.js';

export type SandboxSetting = 'on' | 'off';
export type SandboxChoice = { bwrap: string | null; testNetwork: boolean };

/** `flag` wins, else LEAP_SANDBOX (`writer` and `reader` mean on: the command knows each leaf's role), else on. */
export function sandboxSetting(flag: string | undefined, env: NodeJS.ProcessEnv): SandboxSetting {
  const given = sandboxFlag(flag);
  if (given !== undefined) return given;
  const value = env.LEAP_SANDBOX || 'on';
  if (value === 'off') return 'off';
  if (value === 'on' || value === 'writer' || value === 'reader') return 'on';
  throw new UsageError(`LEAP_SANDBOX must be on, writer, reader or off, got ${JSON.stringify(value)}`);
}

/** Once per command, before its first leaf: on, without a working bwrap, a SandboxUnavailableError (exit 2). */
export function chooseSandbox(setting: SandboxSetting, env: NodeJS.ProcessEnv, testNetwork = false): SandboxChoice {
  return { bwrap: setting === 'off' ? null : checkSandbox(env), testNetwork };
}

export function agentSandbox(agent: AgentPlugin, role: SandboxRole, tree: string, env: Env, stateDir?: string) {
  const { network = true, agentPaths = [], passEnv = [], read = [], write = [] } = agent.sandbox?.(env) ?? {};
  const copies = { agentPaths: [...agentPaths], passEnv: [...passEnv], read: [...read], write: [...write] };
  const spec: SandboxSpec = { role, tree, network, ...copies };
  if (stateDir !== undefined) spec.hide = [stateDir];
  return spec;
}

type Env = NodeJS.ProcessEnv;

/** A suite run or a proof: the user's whole environment; in a scratch tree, ~/.cache is a throwaway layer. */
export function suiteSandbox(tree: string, stateDir: string | undefined, network: boolean): SandboxSpec {
  const hide = stateDir === undefined ? [] : [stateDir];
  const spec: SandboxSpec = { role: 'writer', tree, inheritEnv: true, network, hide };
  const scratch = scratchReads(tree);
  return scratch === undefined ? spec : { ...spec, ...scratch, homeCaches: 'throwaway' };
}
