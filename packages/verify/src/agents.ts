// Naming agents: the built-in CLIs by name, and any agent an agents file defines.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { AgentPlugin, AgentSandboxNeeds } from '@leap/core';
import { FileFormatError, LeapError, UsageError, didYouMean, parseJsonText, showValue } from '@leap/core';
import { createClaudeAgent } from '@leap/agent-claude';
import { createCodexAgent } from '@leap/agent-codex';
import { createCommandAgent } from '@leap/agent-command';
import { createGeminiAgent } from '@leap/agent-gemini';
import { createScriptedAgent } from '@leap/agent-scripted';
import { knownVendor, vendorFamily } from './family.js';

type Launch = { command?: string[]; script?: string; bin?: string; model?: string; extraArgs?: string[] };
interface AgentEntry extends Launch, Reach {
  plugin: 'claude' | 'codex' | 'gemini' | 'command' | 'scripted';
  /** Required for `command`; overrides the plugin's family otherwise (read as a vendor: `gemma` is `google`). */
  family?: string;
  env?: Record<string, string>;
  /** `codex`: false skips the CLI's readiness check (a setup the check cannot judge). */
  preflight?: boolean;
  /** `codex`, `gemini` (no cost reported): US dollars per million input and output tokens, to estimate the cost. */
  usd_per_million_tokens?: { input: number; output: number };
  /** Inside the sandbox (CONTRACT section 13): more variables passed (names, or prefixes ending in `*`). */
  pass_env?: string[];
}
type Reach = { paths?: { read?: string[]; write?: string[] }; network?: boolean };

const LISTED_ROLES = ['developer', 'verifier', 'planner', 'builder'] as const;
type Roles = Partial<Record<(typeof LISTED_ROLES)[number], string[]>>;
export type AgentRegistry = { file: string | null; entries: Record<string, AgentEntry>; roles: Roles };
export const BUILTIN_AGENTS = ['claude', 'codex', 'gemini'] as const;
const isBuiltin = (name: string) => (BUILTIN_AGENTS as readonly string[]).includes(name);
const PLUGINS = new Set(['claude', 'codex', 'gemini', 'command', 'scripted']);
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export function loadAgentRegistry(file: string | undefined, env: NodeJS.ProcessEnv = process.env): AgentRegistry {
  const path = file ?? (env.VERI_AGENTS === '' ? undefined : env.VERI_AGENTS);
  if (path === undefined) return { file: null, entries: {}, roles: {} };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new FileFormatError(path, undefined, `cannot read the agents file: ${(cause as Error).message}`, { cause });
  }
  const data = parseJsonText(path, text);
  const agents = (data as { agents?: unknown } | null)?.agents;
  if (typeof agents !== 'object' || agents === null || Array.isArray(agents))
    throw new FileFormatError(path, undefined, 'expected {"agents": {"NAME": {"plugin": ...}, ...}}');
  const entries = Object.fromEntries(Object.entries(agents).map(([name, e]) => [name, checkEntry(path, name, e)]));
  const unknown = Object.keys(data as object).find((k) => k !== 'agents' && k !== 'roles' && !k.startsWith('$'));
  if (unknown !== undefined) {
    const expected = 'expected "agents", "roles" and notes whose keys start with "$"';
    throw new FileFormatError(path, undefined, `unknown key ${showValue(unknown)}: ${expected}`);
  }
  return { file: resolve(path), entries, roles: checkRoles(path, (data as { roles?: unknown }).roles, entries) };
}

function checkRoles(file: string, roles: unknown, entries: Record<string, AgentEntry>): AgentRegistry['roles'] {
  const bad = (message: string): never => {
    throw new FileFormatError(file, undefined, message);
  };
  if (roles === undefined) return {};
  const shown = (value: unknown) => showValue(JSON.stringify(value));
  if (typeof roles !== 'object' || roles === null || Array.isArray(roles))
    bad(`expected "roles" to be {"developer": [NAME...], ...}, found ${shown(roles)}`);
  const found: AgentRegistry['roles'] = {};
  for (const [role, list] of Object.entries(roles as object)) {
    if (!(LISTED_ROLES as readonly string[]).includes(role))
      bad(`unknown role ${showValue(role)} in "roles": expected ${LISTED_ROLES.join(', ')}`);
    if (!Array.isArray(list) || list.length === 0 || !list.every((n) => typeof n === 'string'))
      bad(`expected "roles.${role}" to be a non-empty array of agent names, found ${shown(list)}`);
    const stranger = (list as string[]).find((name) => entries[name] === undefined && !isBuiltin(name));
    const builtins = `a built-in (${BUILTIN_AGENTS.join(', ')})`;
    if (stranger !== undefined)
      bad(`"roles.${role}" names ${showValue(stranger)}, which is neither ${builtins} nor an agent of this file`);
    if (new Set(list).size !== list.length)
      bad(`"roles.${role}" names an agent twice: ${showValue((list as string[]).join(','))}`);
    found[role as keyof AgentRegistry['roles']] = list as string[];
  }
  return found;
}

export function agentList(option: string, value: string): string[] {
  const names = value.split(',').map((n) => n.trim());
  if (names.some((n) => !NAME.test(n)))
    throw new UsageError(`${option}: expected an agent name, or names separated by commas, found ${showValue(value)}`);
  if (new Set(names).size !== names.length)
    throw new UsageError(`${option}: names an agent twice: ${showValue(value)}`);
  return names;
}

function checkEntry(file: string, name: string, entry: unknown): AgentEntry {
  const bad = (message: string): never => {
    throw new FileFormatError(file, undefined, `agent ${showValue(name)}: ${message}`);
  };
  const expected = (key: string, what: string, found: unknown) =>
    bad(`expected "${key}" to be ${what}, found ${showValue(found)}`);
  if (!NAME.test(name)) bad('expected a name of letters, digits, ".", "_" or "-"');
  if (typeof entry !== 'object' || entry === null) bad(`expected an object, found ${showValue(entry)}`);
  const e = entry as Record<string, unknown>;
  if (typeof e.plugin !== 'string' || !PLUGINS.has(e.plugin))
    bad(`expected "plugin" to be one of ${[...PLUGINS].join(', ')}, found ${showValue(e.plugin)}`);
  for (const key of ['family', 'script', 'bin', 'model'] as const)
    if (e[key] !== undefined && typeof e[key] !== 'string') expected(key, 'a string', e[key]);
  if (typeof e.family === 'string' && !/^[A-Za-z0-9_.]+$/.test(e.family))
    expected('family', 'a word of letters, digits, "_" or "." (it names leaves)', e.family);
  for (const key of ['command', 'extraArgs'] as const)
    if (e[key] !== undefined && !(Array.isArray(e[key]) && (e[key] as unknown[]).every((a) => typeof a === 'string')))
      bad(`expected "${key}" to be an array of strings`);
  if (e.preflight !== undefined && typeof e.preflight !== 'boolean')
    expected('preflight', "true or false (false: skip the CLI's readiness check)", e.preflight);
  const variable = (a: unknown) => typeof a === 'string' && /^[A-Za-z_][A-Za-z0-9_]*\*?$/.test(a);
  if (e.pass_env !== undefined && !(Array.isArray(e.pass_env) && e.pass_env.every(variable)))
    expected('pass_env', 'an array of variable names (or prefixes ending in "*")', JSON.stringify(e.pass_env));
  if (e.usd_per_million_tokens !== undefined) {
    const p = e.usd_per_million_tokens as Record<string, unknown> | null;
    const price = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
    if (e.plugin !== 'codex' && e.plugin !== 'gemini')
      bad(
        '"usd_per_million_tokens" is for codex and gemini, which report no cost; ' +
          `${String(e.plugin)} reports its own or none`,
      );
    const keys = typeof p === 'object' && p !== null && !Array.isArray(p) ? Object.keys(p).sort().join() : '';
    const prices = '{"input": USD, "output": USD} (non-negative numbers)';
    if (keys !== 'input,output' || !price(p?.input) || !price(p?.output))
      expected('usd_per_million_tokens', prices, JSON.stringify(p));
  }
  if (e.network !== undefined && typeof e.network !== 'boolean') expected('network', 'true or false', e.network);
  if (e.paths !== undefined) checkPaths(e.paths, bad);
  if (e.plugin === 'command' && (e.command === undefined || e.family === undefined))
    bad('a command agent needs "command" (argv) and "family"');
  if (e.plugin === 'scripted' && e.script === undefined) bad('a scripted agent needs "script"');
  return e as unknown as AgentEntry;
}

function checkPaths(paths: unknown, bad: (message: string) => never): void {
  if (typeof paths !== 'object' || paths === null || Array.isArray(paths))
    bad('expected "paths" to be {"read": [DIR...], "write": [DIR...]}');
  for (const [key, list] of Object.entries(paths as Record<string, unknown>)) {
    if (key !== 'read' && key !== 'write') bad(`unknown key "paths.${key}": expected "read" or "write"`);
    if (!(Array.isArray(list) && list.every((p) => typeof p === 'string' && isAbsolute(p))))
      bad(`expected "paths.${key}" to be an array of absolute paths, found ${showValue(JSON.stringify(list))}`);
  }
}

export function resolveAgent(name: string, registry: AgentRegistry): AgentPlugin {
  const entry = registry.entries[name];
  if (entry === undefined) {
    if (isBuiltin(name)) return createFromEntry(name, { plugin: name as AgentEntry['plugin'] }, null);
    const known = [...BUILTIN_AGENTS, ...Object.keys(registry.entries)];
    const others = registry.file === null ? ' (define others in an agents file: --agents FILE or VERI_AGENTS)' : '';
    throw new UsageError(
      `unknown agent ${showValue(name)}${didYouMean(name, known)}: expected one of ${known.join(', ')}${others}`,
    );
  }
  try {
    return createFromEntry(name, entry, registry.file);
  } catch (error) {
    if (!(error instanceof LeapError)) throw error;
    const options = { cause: error, exitCode: error.exitCode };
    throw new UsageError(`agent ${showValue(name)} of ${registry.file ?? 'the built-ins'}: ${error.message}`, options);
  }
}

function createFromEntry(name: string, entry: AgentEntry, file: string | null): AgentPlugin {
  const { bin, model, extraArgs, usd_per_million_tokens: prices, family } = entry;
  const cli = { name, bin, model, extraArgs, prices };
  const dir = file === null ? '.' : dirname(file);
  const make: Record<AgentEntry['plugin'], () => AgentPlugin> = {
    claude: () => createClaudeAgent(cli),
    codex: () => createCodexAgent(entry.preflight === undefined ? cli : { ...cli, preflight: entry.preflight }),
    gemini: () => createGeminiAgent(cli),
    command: () => createCommandAgent({ name, command: entry.command!, family: family!, env: entry.env }),
    scripted: () => createScriptedAgent({ name, script: resolve(dir, entry.script!), family }),
  };
  const agent = make[entry.plugin]();
  const declared = entry.family ?? (entry.model === undefined ? null : knownVendor(entry.model));
  return withVendorFamily(withEntryNeeds(declared === null ? agent : { ...agent, family: declared }, entry));
}

function withEntryNeeds(agent: AgentPlugin, entry: AgentEntry): AgentPlugin {
  if (entry.pass_env === undefined && entry.paths === undefined && entry.network === undefined) return agent;
  const own = agent.sandbox;
  const sandbox = (env: NodeJS.ProcessEnv): AgentSandboxNeeds => {
    const base = own?.(env) ?? {};
    return {
      ...base,
      passEnv: [...(base.passEnv ?? []), ...(entry.pass_env ?? [])],
      read: [...(base.read ?? []), ...(entry.paths?.read ?? [])],
      write: [...(base.write ?? []), ...(entry.paths?.write ?? [])],
      network: entry.network ?? base.network,
    };
  };
  return { ...agent, sandbox };
}

export function withVendorFamily(agent: AgentPlugin): AgentPlugin {
  const family = vendorFamily(agent.family);
  return family === agent.family ? agent : { ...agent, family };
}
