// Every agent is resolved before anything runs, so an unknown name is bad input with nothing done.
import { UsageError, showValue } from '@leap/core';

export interface RunBuilder {
  name: string;
  family: string;
}

export interface RunAgents {
  /** The first builder of the list (the one that builds while no vendor runs dry). */
  builder: RunBuilder;
  /** Every builder, in the order tried: `--builder A,B`, else the agents file's `roles.builder`, else claude. */
  builders: RunBuilder[];
  reviewers: string[];
  alternates: string[];
  /** The agents file (absolute), or null for the built-ins only. */
  file: string | null;
}

/** The built-in jury when none is named: every built-in CLI (the builder's family is refused from it). */
const DEFAULT_REVIEWERS = ['claude', 'codex', 'gemini'];
const DEFAULT_BUILDER = 'claude';
const MIN_SEATS = 2;

/** A UsageError names an unknown agent, or a builder the jury could never sit for (under two other families). */
export async function resolveAgents(options: { env: NodeJS.ProcessEnv; agentsFile?: string; builder?: string | string[]; reviewers?: string[]; alternates?: string[] }): Promise<RunAgents> {
  const { agentList, loadAgentRegistry, resolveAgent, withVendorFamily } = await import('@leap/verify');
  const registry = loadAgentRegistry(options.agentsFile, options.env);
  const named = (role: string, name: string) => {
    try {
      return withVendorFamily(resolveAgent(name, registry));
    } catch (error) {
      throw new UsageError(`${role}: ${(error as Error).message}`, { cause: error });
    }
  };
  const option = options.builder === undefined ? undefined : typeof options.builder === 'string' ? agentList('--builder', options.builder) : options.builder;
  const from = option !== undefined ? '--builder' : registry.roles.builder !== undefined ? `${registry.file}: "roles.builder"` : '--builder';
  const builderNames = option ?? registry.roles.builder ?? [DEFAULT_BUILDER];
  if (builderNames.length === 0) throw new UsageError('--builder: expected at least one agent name');
  const builders = builderNames.map((n) => named(from, n)).map((a) => ({ name: a.name, family: a.family }));
  const reviewers = options.reviewers ?? DEFAULT_REVIEWERS;
  const alternates = options.alternates ?? [];
  const jury = reviewers.map((r) => named('--reviewers', r));
  for (const a of alternates) named('--alternates', a);
  // Each builder of the list may build any round: the jury must be able to sit for every one of them.
  for (const builder of builders) {
    const others = jury.filter((a) => a.family !== builder.family);
    if (new Set(others.map((a) => a.family)).size < MIN_SEATS) {
      const which = builders.length === 1 ? "the builder's" : `builder ${showValue(builder.name)}'s`;
      throw new UsageError(`--reviewers: the jury needs at least ${MIN_SEATS} reviewers of families other than ${which} (${showValue(builder.family)}); got ${showValue(reviewers.join(','))}`);
    }
  }
  return { builder: builders[0] as RunBuilder, builders, reviewers, alternates, file: registry.file };
}
