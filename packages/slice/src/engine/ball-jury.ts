import type { AgentPlugin } from '@leap/core';
import { presentScopeFiles, scopePaths } from './checkout.js';
import { findConsumers, renderConsumers } from './consumers.js';
import { summarizeSeats, type JurySummary, type LiveEvidence, type RoundRequest, type RoundResult } from './records.js';
import type { RoundPlace } from './build-round.js';

type JuryOptions = Parameters<typeof import('@leap/verify').conveneJury>[0];
type Sitting = Omit<JuryOptions, 'files' | 'tests' | 'cwd' | 'gitAliases' | 'redactAuthors'>;
type Failed = [what: string, candidate: string];

/** A blind jury in `dir` on the `present` files (tests apart); `failed`: the reason and candidate if it cannot sit. */
export async function sitJury(dir: string, present: string[], options: Sitting, failed: Failed, live?: LiveEvidence) {
  const { conveneJury, isTestFile } = await import('@leap/verify');
  const tests = present.filter((p) => isTestFile(p));
  const files = present.filter((p) => !isTestFile(p));
  try {
    const shown = { files: files.length === 0 ? tests : files, tests: files.length === 0 ? [] : tests, cwd: dir };
    const jury = await conveneJury({ ...options, ...shown, gitAliases: false, redactAuthors: true });
    const { value, reason, candidate, refused, seats } = jury;
    const kept = { value, reason, candidate, refused, seats: summarizeSeats(seats) };
    return { ...(live === undefined ? {} : { live }), ...kept, leaves: seats.map((s) => s.leaf) };
  } catch (error) {
    const reason = `${failed[0]}: ${(error as Error).message}`;
    return { value: 0 as const, reason, candidate: failed[1], seats: [], refused: [], leaves: [] as string[] };
  }
}

// The ball's blind jury, in process, on the scope files present.
export async function judge(place: RoundPlace, request: RoundRequest, agent: AgentPlugin, result: RoundResult) {
  const ball = request.spec;
  const consumers = renderConsumers(await findConsumers(place.dir, result.changed, new Set(scopePaths(ball))));
  // Work of other builders in the candidate (a fall-over mid-ball): the jury refuses their families too.
  const others = (request.builtBy ?? []).filter((f) => f.toLowerCase() !== agent.family.toLowerCase());
  const { reviewers, alternates, authors } = request;
  const seated = { builderFamily: agent.name, otherBuilderFamilies: others, reviewers, alternates, authors };
  const proof = `The focused proof ${JSON.stringify(ball.proof.argv)} passes; only the scope's files change.`;
  const criteria = `${ball.goal}\n${proof}${narrowing(ball)}${consumers}\n${ball.spec}`;
  const env = { ...place.env, VERI_STATE_DIR: place.stateDir };
  const named = { agentsFile: request.agentsFile ?? undefined, builderName: agent.name, modelIds: [agent.family] };
  const leaf = { eventFields: { slice: request.slice, ball: ball.id }, leafKey: ball.id, intent: ball.goal };
  const options = { ...seated, skip: request.skipJurors, criteria, env, ...named, ...leaf };
  // An unreadable candidate (the builder's identities are redacted, never a reason to hold): no verdict, a hold.
  const failed: Failed = ['no jury', result.candidate as string];
  const { leaves, ...jury } = await sitJury(place.dir, presentScopeFiles(place.dir, ball), options, failed);
  for (const seat of leaves) result.leaves.push({ leaf: seat, usage: null });
  return jury as JurySummary;
}

function narrowing(ball: RoundRequest['spec']): string {
  const lines = ball.scope
    .filter((s) => s.symbols !== undefined || s.lines !== undefined)
    .map((s) => {
      const symbols = s.symbols === undefined ? '' : ` symbols ${s.symbols.join(', ')}`;
      const spans = s.lines?.map(([a, b]) => `${a}-${b}`).join(', ');
      return `- ${s.path}:${symbols}${spans === undefined ? '' : ` lines ${spans} (a change outside them is refused)`}`;
    });
  return lines.length === 0 ? '' : `\nThe scope narrows what to look at:\n${lines.join('\n')}`;
}
