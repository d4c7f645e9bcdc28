// The blind jury: seat reviewers of other families, give each the same envelope in parallel, count.
import { type AgentDry, type AgentPlugin, type EventContext, UsageError, appendEvent, createEvent } from '@leap/core';
import { findRepoRoot, readRunContext, resolveStateDir, showValue, statePaths, writeFd } from '@leap/core';
import { BUILTIN_AGENTS, loadAgentRegistry, resolveAgent, withVendorFamily } from '../agents.js';
import { knownVendor, vendorFamily } from '../family.js';
import { checkAgentReady, runAgentLeaf, type AgentLeafResult, type AgentReadiness } from '../run-agent-leaf.js';
import { buildEnvelope, candidateHash, gitAliases, readCandidate, type AuthorAliases } from './envelope.js';
import { LENS_PREAMBLES, answeredAnyway, judgeReview, renderJurorPrompt, type SeatVerdict } from './juror-prompt.js';
import { agentSandbox, chooseSandbox, sandboxSetting, type SandboxSetting } from '../leaf-sandbox.js';
import { changedPaths, fingerprintTree, listPaths, type TreeFingerprint } from './tree-fingerprint.js';

type Panel = { reviewers: ReadonlyArray<string | AgentPlugin>; alternates?: ReadonlyArray<string | AgentPlugin> };
type Case = { intent: string; criteria: string; files: readonly string[]; tests?: readonly string[]; lens?: string };
type Where = { cwd?: string; env?: NodeJS.ProcessEnv; agentsFile?: string; sandbox?: SandboxSetting; leafKey?: string };

export interface JuryOptions extends AuthorAliases, Panel, Case, Where {
  /** A family, a model id (read as its vendor: `claude-opus-4` is `anthropic`), or the builder's agent name. */
  builderFamily: string;
  /** Families of other builders whose work the candidate holds: refused, and with `redactAuthors` redacted too. */
  otherBuilderFamilies?: readonly string[];
  /** Redact instead of refusing (a slice's jury, CONTRACT section 7); default false: an EnvelopeLeakError. */
  redactAuthors?: boolean;
  gitAliases?: boolean;
  eventFields?: { slice?: string; ball?: string };
  /** Names whose vendor ran dry earlier in the run: passed over before dispatch, as an unready reviewer is. */
  skip?: readonly string[];
}

type Seat = { reviewer: string; family: string; leaf: string; status: string; replaced: boolean; dry?: AgentDry };
type SeatRecord = SeatVerdict & Seat;
type RefusedSeat = { reviewer: string; family: string; reason: string };
type JuryResult = { value: -1 | 0 | 1; candidate: string; reason: string; seats: SeatRecord[]; refused: RefusedSeat[] };
const MIN_SEATS = 2;

/** One seat a family: a second is not independent, and leaf names collide; `taken`: seated in an earlier round. */
export function seatReviewers(
  builderFamily: string,
  reviewers: readonly AgentPlugin[],
  taken: readonly string[] = [],
  otherBuilders: readonly string[] = [],
) {
  const builder = builderFamily.toLowerCase();
  const others = new Set(otherBuilders.map((f) => f.toLowerCase()));
  const families = new Map(taken.map((f) => [f.toLowerCase(), '(an earlier seat)']));
  const seating = { seated: [] as AgentPlugin[], refused: [] as RefusedSeat[] };
  for (const agent of reviewers) {
    const family = agent.family.toLowerCase();
    const refuse = (reason: string) => seating.refused.push({ reviewer: agent.name, family: agent.family, reason });
    if (family === builder) refuse(`same family as the builder (${builderFamily})`);
    else if (others.has(family)) refuse(`same family as a builder whose work the candidate holds (${agent.family})`);
    else if (families.has(family)) refuse(`family ${agent.family} is already seated by ${families.get(family)}`);
    else {
      families.set(family, agent.name);
      seating.seated.push(agent);
    }
  }
  return seating;
}

export async function conveneJury(options: JuryOptions): Promise<JuryResult> {
  const sitting = await openSitting(options);
  const { candidate } = sitting;
  const seating = await seatJury(sitting);
  if (seating.seated.length < MIN_SEATS) {
    const others = `reviewer(s) of a family other than the builder's (${sitting.builderFamily})`;
    const reason = `hold: only ${seating.seated.length} ${others}; the jury needs ${MIN_SEATS}`;
    writeFd(2, `leap-jury: ${reason}\n`);
    logReview(sitting, { candidate, reviewer: null, family: null, verdict: 'none', value: 0, reasoning: reason });
    return { value: 0, candidate, reason, seats: [], refused: seating.refused };
  }
  const before = await sitting.treeBefore;
  const seats = await seatRound(sitting, seating.seated);
  const reseated = await reseatSilent(sitting, seats, seating.spare);
  const refused = [...seating.refused, ...seating.unreadyAlternates, ...reseated.refused];
  seats.push(...reseated.seats);
  const { value, reason } = voidIfStale(combine(seats.filter((s) => !s.replaced)), await staleness(sitting, before));
  if (value === 0) writeFd(2, `leap-jury: ${reason}\n`);
  const verdict = value === 1 ? 'pass' : value === -1 ? 'refuse' : 'none';
  logReview(sitting, { candidate, reviewer: null, family: null, verdict, value, reasoning: reason });
  return { value, candidate, reason, seats, refused };
}

type Sitting = Awaited<ReturnType<typeof openSitting>>;

async function openSitting(options: JuryOptions) {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const lens = options.lens ?? 'defect';
  const lenses = `expected one of ${Object.keys(LENS_PREAMBLES).join(', ')}`;
  if (LENS_PREAMBLES[lens] === undefined) throw new UsageError(`unknown lens ${showValue(lens)}: ${lenses}`);
  const registry = loadAgentRegistry(options.agentsFile, env);
  const { bwrap } = chooseSandbox(options.sandbox ?? sandboxSetting(undefined, env), env);
  const toAgent = (r: string | AgentPlugin) => withVendorFamily(typeof r === 'string' ? resolveAgent(r, registry) : r);
  const reviewers = options.reviewers.map(toAgent);
  const alternates = (options.alternates ?? []).map(toAgent);
  const builderFamily = familyOf(options.builderFamily, registry);
  const stateDir = resolveStateDir(env, cwd);
  const repo = findRepoRoot(cwd) ?? cwd;
  // Started now, read before any reviewer starts: what the repository holds, to see whether the review changed it.
  const treeBefore = fingerprintTree(repo, stateDir, env);
  const files = readCandidate(cwd, options.files, options.tests ?? []);
  const candidate = candidateHash(files);
  const authors = [...(options.authors ?? []), ...(options.gitAliases === false ? [] : await gitAliases(cwd))];
  const otherBuilders = options.otherBuilderFamilies ?? [];
  const modelIds = [...(options.modelIds ?? []), ...otherBuilders];
  const input = { candidate, intent: options.intent, criteria: options.criteria, files };
  const envelope = buildEnvelope(input, { ...options, modelIds, authors }, options.redactAuthors === true);
  const prompt = renderJurorPrompt(lens, envelope);
  const run = readRunContext(stateDir, env);
  const context: EventContext = { issue: run.issue, step: run.step, skillCommit: run.skillCommit };
  const sandboxOf = (a: AgentPlugin) => (bwrap === null ? null : agentSandbox(a, 'reader', repo, env, stateDir));
  const seat = { options, cwd, env, lens, reviewers, alternates, builderFamily, otherBuilders, stateDir, repo };
  const leafOptions = { role: 'reviewer' as const, cwd: repo };
  return { ...seat, leafOptions, sandboxOf, treeBefore, candidate, prompt, context };
}

function logReview(s: Sitting, fields: Parameters<typeof createEvent<'review'>>[1]): void {
  appendEvent(statePaths(s.stateDir).events, createEvent('review', { ...s.options.eventFields, ...fields }, s.context));
}

function fallover(s: Sitting, seat: SeatRecord, next: string | null): void {
  const dry = seat.dry as AgentDry;
  const heir = next === null ? 'no alternate is left to take its seat' : `${next} takes its seat`;
  writeFd(2, `leap-jury: ${seat.reviewer}'s vendor ran dry (${dry.kind}): ${dry.message}; ${heir}\n`);
  const { leaf, reviewer: agent, family } = seat;
  const fields = { leaf, role: 'reviewer' as const, agent, family, cause: dry.kind, message: dry.message, next };
  const event = createEvent('fallover', { ...s.options.eventFields, ...fields }, s.context);
  appendEvent(statePaths(s.stateDir).events, event);
}

// The fleet ladder: all probed before anyone sits, so ready alternates replace dead CLIs before the jury starts.
async function seatJury(s: Sitting) {
  const { reviewers, alternates, builderFamily, otherBuilders } = s;
  const probe = new Map<AgentPlugin, Promise<AgentReadiness>>();
  const skip = new Set(s.options.skip ?? []);
  const ranDry = 'its vendor ran dry earlier in this run';
  const dry = { ready: false, code: 1, failureKind: 'failed', failure: ranDry } as const;
  for (const agent of [...reviewers, ...alternates]) {
    if (skip.has(agent.name)) probe.set(agent, Promise.resolve(dry));
    probe.set(agent, probe.get(agent) ?? checkAgentReady(agent, s.leafOptions, s.env, undefined, s.sandboxOf(agent)));
  }
  const notReady: RefusedSeat[] = [];
  const ready = async (agents: AgentPlugin[]) => {
    const out: AgentPlugin[] = [];
    for (const agent of agents) {
      const answer = await (probe.get(agent) as Promise<AgentReadiness>);
      if (answer.ready) out.push(agent);
      else notReady.push({ reviewer: agent.name, family: agent.family, reason: `not ready: ${answer.failure}` });
    }
    return out;
  };
  const readyReviewers = await ready(reviewers);
  const readyAlternates = await ready(alternates);
  const ladder = seatReviewers(builderFamily, readyReviewers, [], otherBuilders);
  const missing = reviewers.length - readyReviewers.length;
  const taken = ladder.seated.map((a) => a.family);
  const climbed = missing > 0 ? seatReviewers(builderFamily, readyAlternates, taken, otherBuilders).seated : [];
  const stepUp = climbed.slice(0, missing);
  const isReviewer = (r: RefusedSeat) => reviewers.some((a) => a.name === r.reviewer);
  const refused = [...notReady.filter(isReviewer), ...ladder.refused];
  for (const r of refused) writeFd(2, `leap-jury: refused ${r.reviewer} (${r.family}) before dispatch: ${r.reason}\n`);
  const instead = 'an alternate, seated in place of a reviewer that was not ready';
  for (const agent of stepUp) writeFd(2, `leap-jury: ${agent.name} (${agent.family}), ${instead}\n`);
  const spare = readyAlternates.filter((a) => !stepUp.includes(a));
  const unreadyAlternates = notReady.filter((r) => !isReviewer(r));
  return { seated: [...ladder.seated, ...stepUp], refused, spare, unreadyAlternates };
}

function seatRound(s: Sitting, agents: AgentPlugin[]): Promise<SeatRecord[]> {
  const { prompt, stateDir, env, leafOptions: options } = s;
  const running = agents.map((agent) => {
    const name = `review-${s.options.leafKey ?? s.candidate.slice(0, 8)}-${agent.family}`;
    return runAgentLeaf({ name, agent, prompt, options, stateDir, env, preflight: false, sandbox: s.sandboxOf(agent) });
  });
  return Promise.all(running.map(async (leafRun, i) => recordSeat(s, agents[i] as AgentPlugin, await leafRun)));
}

function recordSeat(s: Sitting, agent: AgentPlugin, leafRun: AgentLeafResult): SeatRecord {
  const ran = answeredAnyway(agent, leafRun);
  const verdict = judgeReview(ran, s.lens);
  const said = verdict.reasoning === undefined ? verdict.note : `${verdict.note}: ${verdict.reasoning}`;
  const reasoning = verdict.rawTail === undefined ? said : `${said}; raw tail: ${JSON.stringify(verdict.rawTail)}`;
  const { verdict: word, value, findings } = verdict;
  const { name: reviewer, family } = agent;
  logReview(s, { candidate: s.candidate, reviewer, family, verdict: word, value, findings, reasoning });
  const seat = { ...verdict, reviewer, family, leaf: ran.name, status: ran.status, replaced: false };
  return ran.dry === null ? seat : { ...seat, dry: ran.dry };
}

async function reseatSilent(s: Sitting, seats: readonly SeatRecord[], spare: AgentPlugin[]) {
  const silent = seats.filter((seat) => seat.value === 0);
  if (silent.length === 0) return { seats: [], refused: [] };
  const families = [...seats.filter((seat) => seat.value !== 0), ...silent].map((seat) => seat.family);
  const reseat = seatReviewers(s.builderFamily, spare, families, s.otherBuilders);
  for (const r of reseat.refused)
    writeFd(2, `leap-jury: refused alternate ${r.reviewer} (${r.family}) before dispatch: ${r.reason}\n`);
  const chosen = reseat.seated.slice(0, silent.length);
  for (const [i, agent] of chosen.entries()) {
    const seat = silent[i] as SeatRecord;
    seat.replaced = true;
    const heir = `${agent.name} (${agent.family})`;
    writeFd(2, `leap-jury: ${seat.reviewer} (${seat.family}) never answered; re-seating with ${heir}\n`);
    if (seat.dry !== undefined) fallover(s, seat, agent.name);
  }
  for (const seat of silent.slice(chosen.length)) if (seat.dry !== undefined) fallover(s, seat, null);
  return { seats: await seatRound(s, chosen), refused: reseat.refused };
}

async function staleness(s: Sitting, before: TreeFingerprint | null): Promise<string | null> {
  const after = candidateHash(readCandidate(s.cwd, s.options.files, s.options.tests ?? []));
  const treeAfter = before === null ? null : await fingerprintTree(s.repo, s.stateDir, s.env);
  const changed = before === null || treeAfter === null ? [] : changedPaths(before, treeAfter);
  const voided = 'the verdicts of the reviewers that ran are void';
  if (after !== s.candidate) {
    const hashes = `sha256 ${s.candidate.slice(0, 12)} -> ${after.slice(0, 12)}`;
    return `the candidate changed during the review (${hashes}); no verdict on stale files`;
  }
  const unread = `the repository could not be read after the review (git status failed in ${s.repo})`;
  if (before !== null && treeAfter === null) return `${unread}; ${voided}`;
  return changed.length > 0 ? `the repository changed during the review (${listPaths(changed)}); ${voided}` : null;
}

// A change voids the passes; a refusal stands (a hold must not let the next round launder it).
function voidIfStale(counts: ReturnType<typeof combine>, stale: string | null): ReturnType<typeof combine> {
  if (stale === null) return counts;
  if (counts.value === -1) return { value: -1, reason: `${counts.reason}; and ${stale}` };
  return { value: 0, reason: `hold: ${stale}` };
}

/** 1 needs at least two passes, one saying what it checked: bare passes are never the only proof (3.6). */
export function combine(
  seats: ReadonlyArray<Pick<SeatRecord, 'value' | 'reviewer' | 'note' | 'findings' | 'reasoning'>>,
): { value: -1 | 0 | 1; reason: string } {
  const refusing = seats.filter((s) => s.value === -1);
  if (refusing.length > 0)
    return { value: -1, reason: `refuse: ${refusing.map((s) => `${s.reviewer} (${s.note})`).join('; ')}` };
  const hold = (reason: string) => ({ value: 0 as const, reason: `hold: ${reason}` });
  const silent = seats.filter((s) => s.value === 0);
  if (silent.length > 0) return hold(silent.map((s) => `${s.reviewer} ${s.note}`).join('; '));
  if (seats.length < MIN_SEATS) return hold(`${seats.length} passing seat(s), the jury needs ${MIN_SEATS}`);
  const reviewers = seats.map((s) => s.reviewer).join(', ');
  if (seats.every((s) => s.findings.length === 0 && (s.reasoning ?? '').trim() === ''))
    return hold(
      `only bare passes (no finding, no reasoning) from ${reviewers}: a low-information vote is never the only proof`,
    );
  return { value: 1, reason: `unanimous pass of ${seats.length} reviewers: ${reviewers}` };
}

// An agent name stands for its family; a model id or alias (`gpt-5`) for its vendor, which it excludes whole.
function familyOf(builder: string, registry: ReturnType<typeof loadAgentRegistry>): string {
  if (builder.trim() === '') throw new UsageError("Expected --builder-family to name the builder's model family");
  if (registry.entries[builder] !== undefined || (BUILTIN_AGENTS as readonly string[]).includes(builder))
    return resolveAgent(builder, registry).family;
  const family = vendorFamily(builder);
  const unknown = `${showValue(builder)} is not a vendor or model the family table knows (src/family.ts)`;
  const refused = `only reviewers of family ${showValue(family)} are refused`;
  if (knownVendor(builder) === null) writeFd(2, `leap-jury: the builder ${unknown}: ${refused}\n`);
  return family;
}
