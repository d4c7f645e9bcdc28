// The run's agents: the builder, the jury and its alternates, named as leap-jury names them (built-ins or
// an agents file), all resolved before anything runs, so an unknown name is bad input with nothing done.
import { UsageError, showValue } from '@leap/core';

/** The resolved agents of a run. */
export interface RunAgents {
  builder: { name: string; family: string };
  reviewers: string[];
  alternates: string[];
  /** The agents file (absolute), or null for the built-ins only. */
  file: string | null;
}

/** The built-in jury when none is named: every built-in CLI (the builder's family is refused from it). */
const DEFAULT_REVIEWERS = ['claude', 'codex', 'gemini'];
const MIN_SEATS = 2;

/** Resolve every agent name; a UsageError names the one that does not exist, or a jury that could never sit. */
export async function resolveAgents(options: { env: NodeJS.ProcessEnv; agentsFile?: string; builder?: string; reviewers?: string[]; alternates?: string[] }): Promise<RunAgents> {
  const { loadAgentRegistry, resolveAgent, withVendorFamily } = await import('@leap/verify');
  const registry = loadAgentRegistry(options.agentsFile, options.env);
  const named = (role: string, name: string) => {
    try {
      return withVendorFamily(resolveAgent(name, registry));
    } catch (error) {
      throw new UsageError(`${role}: ${(error as Error).message}`, { cause: error });
    }
  };
  const builder = named('--builder', options.builder ?? 'claude');
  const reviewers = options.reviewers ?? DEFAULT_REVIEWERS;
  const alternates = options.alternates ?? [];
  const others = reviewers.map((r) => named('--reviewers', r)).filter((a) => a.family !== builder.family);
  for (const a of alternates) named('--alternates', a);
  if (new Set(others.map((a) => a.family)).size < MIN_SEATS) {
    throw new UsageError(`--reviewers: the jury needs at least ${MIN_SEATS} reviewers of families other than the builder's (${showValue(builder.family)}); got ${showValue(reviewers.join(','))}`);
  }
  return { builder: { name: builder.name, family: builder.family }, reviewers, alternates, file: registry.file };
}
