// One round in the order of trust: after the builder, the engine alone proves, hashes and judges. Any runner calls it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentPlugin, type AgentUsage, showValue } from '@leap/core';
import type { SandboxSpec } from '@leap/supervise';
import { checkFileMap } from '../definition/index.js';
import { changesOutsideLines, normalScopePath, commitAndCheck, commitStaged, hashCandidate } from './checkout.js';
import { restoreToIndex, scopePaths, stageChanges, undoTo, unstagedChanges } from './checkout.js';
import { judge } from './ball-jury.js';
import { readBuilderAnswer } from './prompt.js';
import { linkedPlaces, readLinks, restoreLinks, withLinked } from './linked.js';
import { keepOrRevert, proofIdleLimit, proofLeaves, proofPassed, runLive, runProof, type ProofPlace } from './proof.js';
import type { ProofRun, RoundRequest, RoundResult } from './records.js';

export interface RoundPlace {
  dir: string;
  stateDir: string;
  env: NodeJS.ProcessEnv;
  /** Top-level entries the runner linked into the checkout (ignored dependencies): never the builder's changes. */
  linked?: string[];
}

type Round = Awaited<ReturnType<typeof startRound>>;

const UNDONE = "this ball's changes are undone";
const rewrote = (what: string, from: string, to: string) =>
  `${what} (sha256 ${from.slice(0, 12)} -> ${to.slice(0, 12)}); refused`;

/** Build and score one round; never throws for what a builder, a proof or a reviewer did. */
export async function buildRoundIn(place: RoundPlace, request: RoundRequest): Promise<RoundResult> {
  const round = await startRound(place, request);
  const { dir, ball, end } = round;
  if (request.checkMap) {
    const map = checkFileMap({ root: dir, slice: request.definition, ball: ball.id, passed: new Set(request.passed) });
    if (map.receipt !== 1) return end(map.receipt, `file map: ${map.reasons.join('; ')}`, false);
  }
  const started = (await measureChampion(round)) ?? (await runBuilder(round));
  return started ?? (await proveBuilt(round)) ?? (await liveProof(round)) ?? keepAndJudge(round);
}

async function startRound(place: RoundPlace, request: RoundRequest) {
  const { dir } = place;
  const ball = request.spec;
  const verify = await import('@leap/verify');
  const { loadAgentRegistry, resolveAgent, withVendorFamily, agentSandbox } = verify;
  const { sandboxSetting, chooseSandbox, suiteSandbox } = verify;
  const setting = sandboxSetting(undefined, place.env);
  const bwrap = setting === 'off' ? null : chooseSandbox(setting, place.env).bwrap;
  const linked = place.linked ?? [];
  const proofBox = (network: boolean): SandboxSpec | null =>
    bwrap === null ? null : withLinked(suiteSandbox(dir, place.stateDir, network), dir, linked);
  const registry = loadAgentRegistry(request.agentsFile ?? undefined, place.env);
  const agent: AgentPlugin = withVendorFamily(resolveAgent(request.agent, registry));
  const leaf = `build-${ball.id}-${request.round}`;
  const builder = { agent: agent.name, family: agent.family, leaf, status: null };
  const empty = { receipt: null, reason: '', candidate: null, commit: null, proof: null, changed: [] };
  const judged = { champion: request.champion, jury: null, reproof: null };
  const result: RoundResult = { ...empty, ...judged, builder, leaves: [], answer: null };
  // Undo: a round's move back to the round's start; a refusal, every change of the ball back to its start.
  const end = async (receipt: RoundResult['receipt'], reason: string, undo: boolean): Promise<RoundResult> => {
    if (undo) {
      await undoTo(dir, receipt === -1 ? request.start : request.commit, place.linked);
      result.commit = null;
    }
    return Object.assign(result, { receipt, reason });
  };
  const proofEnv = { ...place.env, LEAP_SLICE: request.slice, LEAP_BALL: ball.id, LEAP_ROUND: String(request.round) };
  const idleMs = proofIdleLimit(place.env);
  const theirs = linkedPlaces(dir, linked);
  const names = proofLeaves(ball.id, request.round);
  const links = readLinks(dir, linked);
  const at = { cwd: dir, env: proofEnv, stateDir: place.stateDir, timeoutMs: request.timeoutMs, idleMs, theirs };
  const proofAt = (name: string, network = false): ProofPlace => ({ ...at, name, sandbox: proofBox(network) });
  const writerBox = () =>
    bwrap === null ? null : withLinked(agentSandbox(agent, 'writer', dir, proofEnv, place.stateDir), dir, linked);
  const commit = async (what: string) => {
    result.commit = await commitStaged(dir, `leap: ${ball.id} round ${request.round} ${what}`);
  };
  return { place, request, dir, ball, agent, result, end, proofAt, names, links, proofEnv, writerBox, commit };
}

// The proof at the ball's start, the champion, when the request holds none: a red-first ball needs it to fail.
async function measureChampion(round: Round): Promise<RoundResult | null> {
  const { place, request, dir, ball, result, end, proofAt, names } = round;
  if (result.champion !== null) return null;
  const { cannotRun, interrupted, lines, ...champion } = await runProof(ball.proof, proofAt(names.champion));
  // A proof that wrote files at the start would be counted as the builder's change: undo it.
  if ((await unstagedChanges(dir, place.linked)).length > 0) await undoTo(dir, request.commit, place.linked);
  if (ball.red_first === true && proofPassed(champion, ball.proof)) {
    result.champion = champion;
    const at = `red first: the proof already passes at the ball's start (${request.start.slice(0, 12)})`;
    return end(-1, `${at}, before any change, so it cannot prove this ball; no builder ran`, false);
  }
  // A proof that could not run is no red: with red_first the ball is held before any builder runs, nothing kept.
  const why = cannotRun === null || (!interrupted && ownTestMissing(ball, dir)) ? null : cannotRun;
  if (why !== null && (ball.red_first === true || interrupted)) {
    const noRed = `red first: the proof could not run at the ball's start, so its failure there is no red: ${why}`;
    const what = interrupted ? "the proof at the ball's start was interrupted" : noRed;
    return end(0, `${what}${lines === '' ? '' : ` (${lines})`}; no builder ran`, false);
  }
  result.champion = champion;
  return null;
}

async function runBuilder(round: Round): Promise<RoundResult | null> {
  const { runAgentLeaf } = await import('@leap/verify');
  const { place, request, agent, result, end } = round;
  const { leaf } = result.builder;
  const options = { role: 'builder' as const, cwd: place.dir };
  const at = { stateDir: place.stateDir, env: round.proofEnv, sandbox: round.writerBox() };
  const built = await runAgentLeaf({ name: leaf, agent, prompt: request.prompt, options, ...at });
  result.builder.status = built.status;
  result.leaves.push({ leaf, usage: usageOf(built) });
  result.answer = readBuilderAnswer(built.answer?.text ?? built.stdout);
  if (built.status === 'failed-start')
    return end(0, `the builder could not start: ${built.failure ?? built.status}`, true);
  if (built.dry !== null) {
    result.dry = { kind: built.dry.kind, message: built.dry.message };
    const reason = `the builder ${agent.name} (${agent.family}) ran dry (${built.dry.kind}): ${built.dry.message}`;
    return end(0, reason, true);
  }
  if (built.status === 'killed-signal') {
    const reason = 'the builder was interrupted: the process running it (the engine or a worker) was asked to stop';
    return end(0, reason, true);
  }
  const spent = result.leaves[0]?.usage?.cost_usd ?? 0;
  if (request.costLeftUsd !== null && spent > request.costLeftUsd) {
    const cost = `${leaf} cost $${spent.toFixed(4)}, $${request.costLeftUsd.toFixed(4)} of --max-cost was left`;
    return end(0, `the cost budget is spent: ${cost}; its work is undone, unjudged`, true);
  }
  return null;
}

async function proveBuilt(round: Round): Promise<RoundResult | null> {
  const { place, request, dir, ball, result, end, proofAt, names, links } = round;
  const before = await hashCandidate(dir, ball);
  const relinked = restoreLinks(dir, links);
  const { cannotRun, interrupted, lines, ...proof } = await runProof(ball.proof, proofAt(names.proof));
  result.proof = proof;
  const changed = await stageChanges(dir, request.commit, place.linked);
  result.changed = changed;
  const scope = new Set(scopePaths(ball));
  const outside = changed.filter((p) => !scope.has(p));
  if (outside.length > 0)
    return end(-1, `edited outside the scope: ${outside.map((p) => showValue(p)).join(', ')}; ${UNDONE}`, true);
  for (const entry of ball.scope) {
    if (entry.lines === undefined || entry.sha256 === null || !changed.includes(entry.path)) continue;
    const stray = await changesOutsideLines(dir, request.start, entry.path, entry.lines);
    if (stray.length > 0) {
      const declared = `outside its declared lines ${entry.lines.map(([a, b]) => `${a}-${b}`).join(', ')}`;
      const changed = stray.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ');
      return end(-1, `edited ${showValue(entry.path)} ${declared} (changed: ${changed}); ${UNDONE}`, true);
    }
  }
  result.candidate = await hashCandidate(dir, ball);
  if (result.candidate !== before)
    return end(-1, rewrote('the proof rewrote the candidate while it ran', before, result.candidate), true);
  if (!proofPassed(proof, ball.proof)) {
    const put =
      relinked.length === 0 ? '' : ` (with the repository's ${relinked.join(', ')}, which the builder had replaced)`;
    const why = `${proof.note ?? `the proof exited ${proof.code}`}${put}`;
    if (changed.length > 0) await round.commit('(proof failed)');
    // A proof the run's stop ended judged nothing: the ball is held, not failed.
    return end(interrupted ? 0 : null, `${why}${lines === '' ? '' : `: ${lines}`}`, false);
  }
  return null;
}

async function liveProof(round: Round): Promise<RoundResult | null> {
  const { place, dir, ball, result, end } = round;
  if (ball.live === undefined) return null;
  const { changed } = result;
  const candidate = result.candidate as string;
  const at = round.proofAt(round.names.live, ball.live.network === true);
  const { lines, cannotRun, ...live } = await runLive(ball.live, at);
  result.live = live;
  const after = await hashCandidate(dir, ball);
  if (after !== candidate)
    return end(-1, rewrote('the live proof rewrote the candidate while it ran', candidate, after), true);
  const dirty = await unstagedChanges(dir, place.linked);
  // What it wrote besides (a build, a log) is not the candidate: the work tree goes back to the staged candidate.
  if (dirty.length > 0) await restoreToIndex(dir, place.linked);
  if (live.code !== 0) {
    if (changed.length > 0) await round.commit('(live proof failed)');
    return end(null, `${live.note ?? `the live proof exited ${live.code}`}${lines === '' ? '' : `: ${lines}`}`, false);
  }
  return null;
}

async function keepAndJudge(round: Round): Promise<RoundResult> {
  const { place, request, dir, ball, agent, result, end, proofAt, names, links } = round;
  const candidate = result.candidate as string;
  const decision = keepOrRevert(ball.proof, result.champion as ProofRun, result.proof as ProofRun);
  if (!decision.keep) return end(null, `${decision.reason}; the candidate is reverted`, true);
  const jury = await judge(place, request, agent, result);
  result.jury = jury;
  if (jury.value === -1) return end(-1, `the jury refused: ${jury.reason}; ${UNDONE}`, true);
  if (jury.candidate !== candidate) {
    const reason = `the jury judged sha256 ${jury.candidate.slice(0, 12)}, not the candidate ${candidate.slice(0, 12)}`;
    return end(-1, reason, true);
  }
  if (jury.value === 0) {
    await round.commit(`candidate ${candidate} (held by the jury)`);
    return end(0, `the jury held: ${jury.reason}`, false);
  }
  restoreLinks(dir, links);
  const again = await runProof(ball.proof, proofAt(names.reproof));
  const after = await hashCandidate(dir, ball);
  result.reproof = { code: again.code, candidate: after, ms: again.ms };
  if (after !== candidate) return end(-1, rewrote('the proof run again changed the candidate', candidate, after), true);
  const wrote = (dirty: string[]) =>
    end(-1, `the proof run again wrote ${dirty.map((p) => showValue(p)).join(', ')}; refused`, true);
  if (!proofPassed(again, ball.proof)) {
    const dirty = await unstagedChanges(dir, place.linked);
    if (dirty.length > 0) return wrote(dirty);
    // Could not run again (a limit, the run's stop, the sandbox): no evidence either way; the candidate is kept, held.
    if (again.cannotRun !== null) {
      await round.commit(`candidate ${candidate} (held: the proof could not run again)`);
      const lines = again.lines === '' ? '' : ` (${again.lines})`;
      return end(0, `the proof could not run again after the jury: ${again.cannotRun}${lines}`, false);
    }
    const reason = `the proof failed when run again after the jury (exit ${again.code}): not reproducible; refused`;
    return end(-1, reason, true);
  }
  // Committed as staged, then checked: a proof that wrote files refuses the ball, and the undo takes the commit too.
  const landed = await commitAndCheck(dir, `leap: ${ball.id} candidate ${candidate}`, place.linked);
  result.commit = landed.commit;
  if (landed.dirty.length > 0) return wrote(landed.dirty);
  return end(1, `passed: ${decision.reason}; ${jury.reason}; the proof passed again with the same candidate`, false);
}

function usageOf(leaf: { answer: { usage?: AgentUsage } | null }): AgentUsage | null {
  return (leaf as { usage?: AgentUsage | null }).usage ?? leaf.answer?.usage ?? null;
}

/** A proof naming a test the ball creates fails to start (`bash test/x.sh`: 127): that is its red, not a cannot-run. */
function ownTestMissing(ball: RoundRequest['spec'], dir: string): boolean {
  const created = new Set(ball.scope.filter((s) => s.sha256 === null).map((s) => s.path));
  return ball.proof.argv.some((arg) => {
    const path = normalScopePath(arg);
    return created.has(path) && !existsSync(join(dir, path));
  });
}
