import type { AgentPlugin } from '@leap/core';
import { presentScopeFiles, scopePaths } from './checkout.js';
import { findConsumers, renderConsumers } from './consumers.js';
import { summarizeSeats, type JurySummary } from './records.js';
import type { RoundRequest, RoundResult } from './round-types.js';
import type { RoundPlace } from './build-round.js';

// The ball's blind jury, in process, on the scope files present.
export async function judge(
  place: RoundPlace,
  request: RoundRequest,
  agent: AgentPlugin,
  result: RoundResult,
): Promise<JurySummary> {
  const { conveneJury, isTestFile } = await import('@leap/verify');
  const ball = request.spec;
  const present = presentScopeFiles(place.dir, ball);
  const tests = present.filter((p) => isTestFile(p));
  const files = present.filter((p) => !isTestFile(p));
  const consumers = renderConsumers(await findConsumers(place.dir, result.changed, new Set(scopePaths(ball))));
  // Work of other builders in the candidate (a fall-over mid-ball): the jury refuses their families too.
  const others = (request.builtBy ?? []).filter((f) => f.toLowerCase() !== agent.family.toLowerCase());
  try {
    const { reviewers, alternates, authors } = request;
    const seated = { builderFamily: agent.name, otherBuilderFamilies: others, reviewers, alternates, authors };
    const skip = request.skipJurors === undefined ? {} : { skip: request.skipJurors };
    const proof = `The focused proof ${JSON.stringify(ball.proof.argv)} passes; only the scope's files change.`;
    const criteria = `${ball.goal}\n${proof}${narrowing(ball)}${consumers}\n${ball.spec}`;
    const shown = { files: files.length === 0 ? tests : files, tests: files.length === 0 ? [] : tests, cwd: place.dir };
    const env = { ...place.env, VERI_STATE_DIR: place.stateDir };
    const named = { agentsFile: request.agentsFile ?? undefined, builderName: agent.name, modelIds: [agent.family] };
    const redact = { intent: ball.goal, gitAliases: false, redactAuthors: true };
    const leaf = { eventFields: { slice: request.slice, ball: ball.id }, leafKey: ball.id };
    const jury = await conveneJury({ ...seated, ...skip, criteria, ...shown, env, ...named, ...redact, ...leaf });
    for (const seat of jury.seats) result.leaves.push({ leaf: seat.leaf, usage: null });
    const { value, reason, candidate, refused } = jury;
    return { value, reason, candidate, refused, seats: summarizeSeats(jury.seats) };
  } catch (error) {
    // An unreadable candidate (the builder's identities are redacted, never a reason to hold): no verdict, a hold.
    const reason = `no jury: ${(error as Error).message}`;
    return { value: 0, reason, candidate: result.candidate as string, seats: [], refused: [] };
  }
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
