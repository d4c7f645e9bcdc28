// Every agent is resolved before anything runs, so an unknown name is bad input with nothing done.
import { UsageError, showValue, type AgentDry } from '@leap/core';
import type { Fallover, JurySummary } from './records.js';
import type { RunSliceOptions } from './run-slice.js';

export type RunBuilder = { name: string; family: string };
export type RunAgents = Awaited<ReturnType<typeof resolveAgents>>;

const DEFAULT_REVIEWERS = ['claude', 'codex', 'gemini'];
const MIN_SEATS = 2;

/** A UsageError names an unknown agent, or a builder the jury could never sit for (under two other families). */
export async function resolveAgents(
  options: Pick<RunSliceOptions, 'agentsFile' | 'builder' | 'reviewers' | 'alternates'> & { env: NodeJS.ProcessEnv },
) {
  const { agentList, loadAgentRegistry, resolveAgent, withVendorFamily } = await import('@leap/verify');
  const registry = loadAgentRegistry(options.agentsFile, options.env);
  const named = (role: string, name: string) => {
    try {
      return withVendorFamily(resolveAgent(name, registry));
    } catch (error) {
      throw new UsageError(`${role}: ${(error as Error).message}`, { cause: error });
    }
  };
  const option = options.builder === undefined ? undefined : agentList('--builder', options.builder);
  const from =
    option === undefined && registry.roles.builder !== undefined ? `${registry.file}: "roles.builder"` : '--builder';
  const builderNames = option ?? registry.roles.builder ?? ['claude'];
  if (builderNames.length === 0) throw new UsageError('--builder: expected at least one agent name');
  const builders: RunBuilder[] = builderNames
    .map((n) => named(from, n))
    .map((a) => ({ name: a.name, family: a.family }));
  const reviewers = options.reviewers ?? DEFAULT_REVIEWERS;
  const alternates = options.alternates ?? [];
  const jury = reviewers.map((r) => named('--reviewers', r));
  for (const a of alternates) named('--alternates', a);
  // Each builder of the list may build any round: the jury must be able to sit for every one of them.
  for (const builder of builders) {
    const others = new Set(jury.filter((a) => a.family !== builder.family).map((a) => a.family));
    if (others.size >= MIN_SEATS) continue;
    const which = builders.length === 1 ? "the builder's" : `builder ${showValue(builder.name)}'s`;
    const need = `the jury needs at least ${MIN_SEATS} reviewers of families other than ${which}`;
    throw new UsageError(`--reviewers: ${need} (${showValue(builder.family)}); got ${showValue(reviewers.join(','))}`);
  }
  return { builder: builders[0] as RunBuilder, builders, reviewers, alternates, file: registry.file };
}

/** Who ran dry in this run (skipped for the rest of it) and which reviewers sat: the engine's only agent state. */
export class AgentsLedger {
  readonly dried = new Map<string, Fallover>();
  readonly seated = new Set<string>();
  /** Reviewers whose vendor ran dry on a jury of this run: passed over by every later jury (conveneJury's `skip`). */
  private readonly driedJurors = new Set<string>();

  constructor(private readonly run: { builders: readonly RunBuilder[]; say: (line: string) => void }) {}

  nextBuilder(): RunBuilder | undefined {
    return this.run.builders.find((b) => !this.dried.has(b.name));
  }

  ranDry(builder: RunBuilder, dry: AgentDry): Fallover {
    const ran: Fallover = { agent: builder.name, family: builder.family, cause: dry.kind, message: dry.message };
    this.dried.set(builder.name, ran);
    return ran;
  }

  /** Why a ball is held when every listed builder ran dry: each agent and its cause, this round's and earlier ones'. */
  ranOut(fallovers: readonly Fallover[]): string {
    const each = [...this.dried.values()].map((d) => `${d.agent} (${d.family}) ${d.cause}: ${d.message}`).join('; ');
    const when = fallovers.length === 0 ? ' earlier in this run' : '';
    const again = 'run again once a vendor serves again';
    return `every builder of the list ran dry${when}: ${each}; nothing was built, no round spent (${again})`;
  }

  noteSeats(seats: JurySummary['seats']): void {
    const { say } = this.run;
    for (const seat of seats) {
      this.seated.add(seat.reviewer);
      if (seat.dry === undefined || this.driedJurors.has(seat.reviewer)) continue;
      this.driedJurors.add(seat.reviewer);
      say(`reviewer ${seat.reviewer}'s vendor ran dry (${seat.dry}): passed over by every later jury of this run`);
    }
  }

  skipJurors(): { skipJurors?: string[] } {
    return this.driedJurors.size === 0 ? {} : { skipJurors: [...this.driedJurors].sort() };
  }
}
