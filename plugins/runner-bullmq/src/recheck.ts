// A worker holding the secret can still lie: what it says is believed only where checked, as for a local round.
import { posix } from 'node:path';
import { openEventLog, parseEventLine, showText, type LeapEvent } from '@leap/core';
import { candidateAt, changesOutsideLines, keepOrRevert, type RoundRequest } from '@leap/slice';
import { git, succeeds } from './git.js';
import type { RoundJobResult } from './protocol.js';

const short = (sha: string) => sha.slice(0, 12);
const quoted = (text: string) => JSON.stringify(showText(text));
const normal = (path: string) => posix.normalize(path.replace(/\\/g, '/')).replace(/^\.\//, '').replace(/\/$/, '');

async function changedBetween(repo: string, from: string, to: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const out = await git(repo, ['diff', '--name-only', '--no-renames', '-z', from, to, '--'], env);
  return out.split('\0').filter((p) => p !== '');
}

/** The result as the engine takes it (-1 where a check fails, saying why), and where leap/SLICE/BALL goes. */
export async function recheckResult(repo: string, request: RoundRequest, said: RoundJobResult, env: NodeJS.ProcessEnv) {
  const result: RoundJobResult = { ...said, reason: showText(said.reason), changed: [] };
  // A refused result is the round's -1, never a fall-over: its dry claim goes with it.
  const refuse = (why: string): { result: RoundJobResult; branchTo: string } => {
    const { dry: _dry, ...rest } = result;
    const reason = `refused by the engine's check of worker ${result.worker}'s result: ${why}`;
    return { result: { ...rest, receipt: -1, commit: null, reason }, branchTo: request.start };
  };
  const ball = request.spec;
  // A dry builder built nothing: a claim of it with work, a pass or a jury is not believed (refused, -1, undone).
  const claim = [
    result.commit !== null && `a commit ${short(result.commit)}`,
    result.receipt !== 0 && `receipt ${result.receipt}`,
    result.jury !== null && 'a jury',
    result.tip !== request.commit && `a tip ${short(result.tip)} that is not the round's commit`,
  ].find((said) => said !== false);
  if (result.dry !== undefined && claim !== undefined)
    return refuse(`it says the builder ran dry (${showText(result.dry.kind)}) yet returns ${claim}`);
  if (result.commit === null) {
    if (result.receipt === 1) return refuse('a receipt 1 without a commit');
    return { result, branchTo: result.receipt === -1 ? request.start : request.commit };
  }
  const commit = result.commit;
  if (commit !== result.tip)
    return refuse(`its commit ${short(commit)} is not the tip it pushed (${short(result.tip)})`);
  if (!(await succeeds(git(repo, ['merge-base', '--is-ancestor', request.commit, commit], env))))
    return refuse(`its commit ${short(commit)} does not descend from the round's commit ${short(request.commit)}`);
  const scope = new Set(ball.scope.map((s) => normal(s.path)));
  const sinceStart = await changedBetween(repo, request.start, commit, env);
  const outside = sinceStart.filter((p) => !scope.has(normal(p)));
  if (outside.length > 0) return refuse(`edited outside the scope: ${outside.map(quoted).join(', ')}`);
  // A scope entry with `lines`: a change of the file outside them is outside the scope, as a local round checks.
  for (const entry of ball.scope) {
    if (entry.lines === undefined || entry.sha256 === null || !sinceStart.some((p) => normal(p) === normal(entry.path)))
      continue;
    const stray = await changesOutsideLines(repo, request.start, normal(entry.path), entry.lines, commit);
    const declared = entry.lines.map(([a, b]) => `${a}-${b}`).join(', ');
    const changed = stray.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ');
    if (stray.length > 0)
      return refuse(`edited ${quoted(entry.path)} outside its declared lines ${declared} (changed: ${changed})`);
  }
  result.changed = await changedBetween(repo, request.commit, commit, env);
  const candidate = await candidateAt(repo, commit, ball);
  const named = result.candidate;
  if (named !== null && named !== candidate)
    return refuse(`the candidate it names (sha256 ${short(named)}) is not its commit's (sha256 ${short(candidate)})`);
  if (result.receipt === 1) {
    const why = passProblems(request, result, candidate);
    if (why !== null) return refuse(`its receipt 1 does not agree with what the engine checks: ${why}`);
  }
  return { result, branchTo: commit };
}

function passProblems(request: RoundRequest, result: RoundJobResult, candidate: string): string | null {
  const proof = request.spec.proof;
  if (result.candidate !== candidate) return 'no candidate hash';
  if (result.proof === null || result.proof.code !== 0 || (proof.metric !== undefined && result.proof.metric === null))
    return 'the proof did not pass';
  const champion = request.champion ?? result.champion;
  if (champion === null) return 'no champion to keep or revert against';
  const decision = keepOrRevert(proof, champion, result.proof);
  if (!decision.keep) return decision.reason;
  const jury = result.jury;
  if (jury === null || jury.value !== 1) return 'no jury passed it';
  if (jury.candidate !== candidate) return `the jury judged sha256 ${short(jury.candidate)}`;
  const seated = jury.seats.filter((s) => s.value === 1);
  if (seated.length < 2 || jury.seats.some((s) => s.value === -1))
    return 'fewer than two reviewers passed it, or one refused it';
  const allowed = new Set([...request.reviewers, ...request.alternates]);
  const strangers = jury.seats.filter((s) => !allowed.has(s.reviewer)).map((s) => s.reviewer);
  if (strangers.length > 0) return `reviewers the engine did not ask for: ${strangers.map(quoted).join(', ')}`;
  if (jury.seats.some((s) => s.family === result.builder.family))
    return `a reviewer of the builder's family ${quoted(result.builder.family)}`;
  const builtBy = new Set((request.builtBy ?? []).map((f) => f.toLowerCase()));
  const kept = jury.seats.find((s) => builtBy.has(s.family.toLowerCase()));
  if (kept !== undefined)
    return `a reviewer of the family ${quoted(kept.family)} of a builder whose work the candidate holds`;
  if (new Set(jury.seats.map((s) => s.family)).size < 2) return 'the reviewers are not of two families';
  if (result.reproof === null || result.reproof.code !== 0 || result.reproof.candidate !== candidate)
    return 'the proof was not run again on the same candidate';
  return null;
}

// Never the worker's lines as they are: only its leaves' kinds, each checked, agreeing with the result, written anew.
const KINDS = new Set(['launch', 'exit', 'usage', 'review']);

/** The events to append for `result`, and how many of the worker's lines were dropped. */
export async function ownEvents(result: RoundJobResult, slice: string, ball: string, round: number) {
  const { proofLeaves } = await import('@leap/slice');
  const leaves = new Map(result.leaves.map((l) => [l.leaf, l.usage]));
  // The round's proofs are supervised leaves too: their launch and exit, never a cost.
  const proofs = new Set(Object.values(proofLeaves(ball, round)));
  // One usage line per leaf: a second would count its cost twice.
  const costed = new Set<string>();
  const keep = (line: string): LeapEvent | null => {
    const parsed = parseEventLine(line);
    if (!('event' in parsed) || !KINDS.has(parsed.event.event)) return null;
    const event = parsed.event as LeapEvent & { leaf?: string; slice?: string; ball?: string };
    const proof = event.event !== 'usage' && event.leaf !== undefined && proofs.has(event.leaf);
    if (event.event !== 'review' && !proof && (event.leaf === undefined || !leaves.has(event.leaf))) return null;
    if (event.event === 'review') return reviewAgrees(event, result, slice, ball) ? { ...event, slice, ball } : null;
    if (event.event !== 'usage') return event;
    // Logged as the result states it (what --max-cost counted; null where its CLI did not say).
    const said = leaves.get(event.leaf as string) ?? null;
    const keys = ['cost_usd', 'input_tokens', 'output_tokens'] as const;
    if (costed.has(event.leaf as string) || !keys.every((k) => (said?.[k] ?? null) === event[k])) return null;
    costed.add(event.leaf as string);
    return event;
  };
  const events = result.events.map(keep).filter((event) => event !== null);
  return { events, dropped: result.events.length - events.length };
}

// Its candidate, a seat's value or a refusal, or the jury's own verdict (reviewer null); of this slice and ball.
function reviewAgrees(event: LeapEvent & { event: 'review' }, result: RoundJobResult, slice: string, ball: string) {
  const jury = result.jury;
  if (jury === null || event.candidate !== jury.candidate) return false;
  if ((event.slice !== undefined && event.slice !== slice) || (event.ball !== undefined && event.ball !== ball))
    return false;
  if (event.reviewer === null) return event.value === jury.value;
  const seat = jury.seats.find((s) => s.reviewer === event.reviewer);
  if (seat !== undefined) return seat.value === event.value;
  return jury.refused.some((r) => r.reviewer === event.reviewer);
}

export function appendEvents(file: string, events: LeapEvent[]): void {
  if (events.length === 0) return;
  const log = openEventLog(file);
  try {
    for (const event of events) log.append(event);
  } finally {
    log.close();
  }
}
