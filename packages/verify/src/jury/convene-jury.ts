// The blind jury: seat reviewers of other families, give each the same envelope in parallel, count.
import type { AgentAnswer, AgentDry, AgentPlugin, EventContext } from '@leap/core';
import { UsageError, appendEvent, createEvent, findRepoRoot, readRunContext, resolveStateDir, showValue, statePaths, writeFd } from '@leap/core';
import { BUILTIN_AGENTS, loadAgentRegistry, resolveAgent, withVendorFamily } from '../agents.js';
import { knownVendor, vendorFamily } from '../family.js';
import { lastVerdictObject } from '../answer-json.js';
import { checkAgentReady, runAgentLeaf } from '../run-agent-leaf.js';
import type { AgentLeafResult, AgentReadiness } from '../run-agent-leaf.js';
import { candidateHash, readCandidate } from './candidate.js';
import { buildEnvelope } from './envelope.js';
import type { AuthorAliases } from './envelope.js';
import { gitAliases } from './git-aliases.js';
import { judgeReview } from './judge-review.js';
import type { SeatVerdict } from './judge-review.js';
import { LENS_PREAMBLES, renderJurorPrompt } from './juror-prompt.js';
import { seatReviewers } from './seat-reviewers.js';
import { agentSandbox, chooseSandbox, sandboxSetting, type SandboxSetting } from '../leaf-sandbox.js';
import { changedPaths, fingerprintTree } from './tree-fingerprint.js';
import type { RefusedSeat } from './seat-reviewers.js';

export interface JuryOptions extends AuthorAliases {
  /** A family, a model id (read as its vendor: `claude-opus-4` is `anthropic`), or the builder's agent name. */
  builderFamily: string;
  /** Families of other builders whose work the candidate holds: refused, and with `redactAuthors` redacted too. */
  otherBuilderFamilies?: readonly string[];
  reviewers: ReadonlyArray<string | AgentPlugin>;
  /** Seated, in order, in place of reviewers that never answered. */
  alternates?: ReadonlyArray<string | AgentPlugin>;
  intent: string;
  criteria: string;
  /** Candidate files and their tests, relative to `cwd`. */
  files: readonly string[];
  tests?: readonly string[];
  /** The lens every juror is seated with (default `defect`). */
  lens?: string;
  /** Redact instead of refusing (a slice's jury, CONTRACT section 7); default false: an EnvelopeLeakError. */
  redactAuthors?: boolean;
  /** Add the repository's git identity and last author to the aliases (default true). */
  gitAliases?: boolean;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  agentsFile?: string;
  /** Carried by every `review` event it appends (CONTRACT section 7). */
  eventFields?: { slice?: string; ball?: string };
  /** KEY in `review-KEY-FAMILY` (CONTRACT section 4); default the candidate hash's first 8 hex digits. */
  leafKey?: string;
  /** Each juror reads a throwaway copy of the repository (CONTRACT section 13); default LEAP_SANDBOX, else on. */
  sandbox?: SandboxSetting;
  /** Names whose vendor ran dry earlier in the run: passed over before dispatch, as an unready reviewer is. */
  skip?: readonly string[];
}

export interface SeatRecord extends SeatVerdict {
  reviewer: string;
  family: string;
  leaf: string;
  status: string;
  /** Replaced by an alternate after never answering: not counted. */
  replaced: boolean;
  /** Its vendor ran dry: a `fallover` event names the alternate that took its place, or none. */
  dry?: AgentDry;
}

/** The jury's result: 1 only on a unanimous pass of at least two seats of other families. */
export interface JuryResult {
  value: -1 | 0 | 1;
  candidate: string;
  reason: string;
  seats: SeatRecord[];
  refused: RefusedSeat[];
}

const MIN_SEATS = 2;

/** Convene the jury; every verdict, the result and the candidate hash are appended as `review` events. */
export async function conveneJury(options: JuryOptions): Promise<JuryResult> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const lens = options.lens ?? 'defect';
  if (LENS_PREAMBLES[lens] === undefined) throw new UsageError(`unknown lens ${showValue(lens)}: expected one of ${Object.keys(LENS_PREAMBLES).join(', ')}`);
  const registry = loadAgentRegistry(options.agentsFile, env);
  // Before anything is read or started: where no sandbox can be made, the jury refuses (exit 2).
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
  const prompt = renderJurorPrompt(lens, buildEnvelope({ candidate, intent: options.intent, criteria: options.criteria, files }, { ...options, modelIds, authors }, options.redactAuthors === true));
  const run = readRunContext(stateDir, env);
  const context: EventContext = { issue: run.issue, step: run.step, skillCommit: run.skillCommit };
  const extra = options.eventFields ?? {};
  const log = (fields: Parameters<typeof createEvent<'review'>>[1]) => appendEvent(statePaths(stateDir).events, createEvent('review', { ...extra, ...fields }, context));
  // A juror whose vendor ran dry hands its seat to an alternate (next), or to nobody: said and recorded as a fall-over.
  const fallover = (seat: SeatRecord, next: string | null) => {
    const dry = seat.dry as AgentDry;
    writeFd(2, `leap-jury: ${seat.reviewer}'s vendor ran dry (${dry.kind}): ${dry.message}; ${next === null ? 'no alternate is left to take its seat' : `${next} takes its seat`}\n`);
    appendEvent(
      statePaths(stateDir).events,
      createEvent('fallover', { ...extra, leaf: seat.leaf, role: 'reviewer', agent: seat.reviewer, family: seat.family, cause: dry.kind, message: dry.message, next }, context),
    );
  };

  // The fleet ladder: all probed before anyone sits, so ready alternates replace dead CLIs before the jury starts.
  const probe = new Map<AgentPlugin, Promise<AgentReadiness>>();
  const skip = new Set(options.skip ?? []);
  for (const agent of [...reviewers, ...alternates]) {
    if (skip.has(agent.name)) probe.set(agent, Promise.resolve({ ready: false, code: 1, failureKind: 'failed', failure: 'its vendor ran dry earlier in this run' }));
    if (!probe.has(agent)) probe.set(agent, checkAgentReady(agent, { role: 'reviewer', cwd: repo }, env, undefined, bwrap === null ? null : agentSandbox(agent, 'reader', repo, env, stateDir)));
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
  const climbed =
    missing > 0
      ? seatReviewers(
          builderFamily,
          readyAlternates,
          ladder.seated.map((a) => a.family),
          otherBuilders,
        )
      : { seated: [], refused: [] };
  const stepUp = climbed.seated.slice(0, missing);
  const usedAlternates = new Set(stepUp);
  const seating = { seated: [...ladder.seated, ...stepUp], refused: [...notReady.filter((r) => reviewers.some((a) => a.name === r.reviewer)), ...ladder.refused] };
  for (const r of seating.refused) writeFd(2, `leap-jury: refused ${r.reviewer} (${r.family}) before dispatch: ${r.reason}\n`);
  for (const agent of stepUp) writeFd(2, `leap-jury: ${agent.name} (${agent.family}), an alternate, seated in place of a reviewer that was not ready\n`);
  if (seating.seated.length < MIN_SEATS) {
    const reason = `hold: only ${seating.seated.length} reviewer(s) of a family other than the builder's (${builderFamily}); the jury needs ${MIN_SEATS}`;
    writeFd(2, `leap-jury: ${reason}\n`);
    log({ candidate, reviewer: null, family: null, verdict: 'none', value: 0, reasoning: reason });
    return { value: 0, candidate, reason, seats: [], refused: seating.refused };
  }
  const leafKey = options.leafKey ?? candidate.slice(0, 8);
  const leafName = (agent: AgentPlugin) => `review-${leafKey}-${agent.family}`;
  const before = await treeBefore;
  const seatRound = (agents: AgentPlugin[]) => {
    // Every leaf is spawned before any answer is awaited (runAgentLeaf spawns before its first await).
    const running = agents.map((agent) =>
      runAgentLeaf({
        name: leafName(agent),
        agent,
        prompt,
        options: { role: 'reviewer', cwd: repo },
        stateDir,
        env,
        preflight: false,
        sandbox: bwrap === null ? null : agentSandbox(agent, 'reader', repo, env, stateDir),
      }),
    );
    return Promise.all(
      running.map(async (leafRun, i): Promise<SeatRecord> => {
        const agent = agents[i] as AgentPlugin;
        const ran = answeredAnyway(agent, await leafRun);
        const verdict = judgeReview(ran, lens);
        const said = verdict.reasoning === undefined ? verdict.note : `${verdict.note}: ${verdict.reasoning}`;
        const reasoning = verdict.rawTail === undefined ? said : `${said}; raw tail: ${JSON.stringify(verdict.rawTail)}`;
        log({ candidate, reviewer: agent.name, family: agent.family, verdict: verdict.verdict, value: verdict.value, findings: verdict.findings, reasoning });
        return { ...verdict, reviewer: agent.name, family: agent.family, leaf: ran.name, status: ran.status, replaced: false, ...(ran.dry === null ? {} : { dry: ran.dry }) };
      }),
    );
  };
  const seats = await seatRound(seating.seated);
  const refused = [...seating.refused];
  const silent = seats.filter((s) => s.value === 0);
  const spare = readyAlternates.filter((a) => !usedAlternates.has(a));
  refused.push(...notReady.filter((r) => !reviewers.some((a) => a.name === r.reviewer)));
  if (silent.length > 0 && spare.length > 0) {
    const answered = seats.filter((s) => s.value !== 0).map((s) => s.family);
    const reseat = seatReviewers(builderFamily, spare, [...answered, ...silent.map((s) => s.family)], otherBuilders);
    refused.push(...reseat.refused);
    for (const r of reseat.refused) writeFd(2, `leap-jury: refused alternate ${r.reviewer} (${r.family}) before dispatch: ${r.reason}\n`);
    const chosen = reseat.seated.slice(0, silent.length);
    for (const [i, agent] of chosen.entries()) {
      const seat = silent[i] as SeatRecord;
      seat.replaced = true;
      writeFd(2, `leap-jury: ${seat.reviewer} (${seat.family}) never answered; re-seating with ${agent.name} (${agent.family})\n`);
      if (seat.dry !== undefined) fallover(seat, agent.name);
    }
    for (const seat of silent.slice(chosen.length)) if (seat.dry !== undefined) fallover(seat, null);
    seats.push(...(await seatRound(chosen)));
  } else {
    for (const seat of silent) if (seat.dry !== undefined) fallover(seat, null);
  }
  const counted = seats.filter((s) => !s.replaced);
  const after = candidateHash(readCandidate(cwd, options.files, options.tests ?? []));
  const treeAfter = before === null ? null : await fingerprintTree(repo, stateDir, env);
  const changed = before === null || treeAfter === null ? [] : changedPaths(before, treeAfter);
  // A change voids the passes; a refusal stands (a hold must not let the next round launder it).
  const stale =
    after !== candidate
      ? `the candidate changed during the review (sha256 ${candidate.slice(0, 12)} -> ${after.slice(0, 12)}); no verdict on stale files`
      : before !== null && treeAfter === null
        ? `the repository could not be read after the review (git status failed in ${repo}); the verdicts of the reviewers that ran are void`
        : changed.length > 0
          ? `the repository changed during the review (${listPaths(changed)}); the verdicts of the reviewers that ran are void`
          : null;
  const counts = combine(counted);
  const { value, reason } = stale === null ? counts : counts.value === -1 ? { value: -1 as const, reason: `${counts.reason}; and ${stale}` } : { value: 0 as const, reason: `hold: ${stale}` };
  if (value === 0) writeFd(2, `leap-jury: ${reason}\n`);
  log({ candidate, reviewer: null, family: null, verdict: value === 1 ? 'pass' : value === -1 ? 'refuse' : 'none', value, reasoning: reason });
  return { value, candidate, reason, seats, refused };
}

/** A parsable verdict, then a non-zero exit, is an answer: only no answer is silence. */
function answeredAnyway(agent: AgentPlugin, ran: AgentLeafResult): AgentLeafResult {
  if (ran.answer !== null || ran.status !== 'exited' || ran.code === 0 || ran.stdout.trim() === '') return ran;
  let answer: AgentAnswer;
  try {
    answer = agent.parseAnswer(ran.stdout);
  } catch {
    return ran;
  }
  const json = answer.json;
  const verdict = (typeof json === 'object' && json !== null && 'verdict' in json) || lastVerdictObject(answer.text) !== null;
  return verdict ? { ...ran, answer, failure: null, failureKind: null, dry: null } : ran;
}

/** 1 needs at least two passes, one saying what it checked: bare passes are never the only proof (3.6). */
export function combine(seats: ReadonlyArray<Pick<SeatRecord, 'value' | 'reviewer' | 'note' | 'findings' | 'reasoning'>>): { value: -1 | 0 | 1; reason: string } {
  const refusing = seats.filter((s) => s.value === -1);
  if (refusing.length > 0) return { value: -1, reason: `refuse: ${refusing.map((s) => `${s.reviewer} (${s.note})`).join('; ')}` };
  const silent = seats.filter((s) => s.value === 0);
  if (silent.length > 0) return { value: 0, reason: `hold: ${silent.map((s) => `${s.reviewer} ${s.note}`).join('; ')}` };
  if (seats.length < MIN_SEATS) return { value: 0, reason: `hold: ${seats.length} passing seat(s), the jury needs ${MIN_SEATS}` };
  if (seats.every((s) => s.findings.length === 0 && (s.reasoning ?? '').trim() === '')) {
    return { value: 0, reason: `hold: only bare passes (no finding, no reasoning) from ${seats.map((s) => s.reviewer).join(', ')}: a low-information vote is never the only proof` };
  }
  return { value: 1, reason: `unanimous pass of ${seats.length} reviewers: ${seats.map((s) => s.reviewer).join(', ')}` };
}

const LISTED_PATHS = 10;

function listPaths(paths: readonly string[]): string {
  const shown = paths
    .slice(0, LISTED_PATHS)
    .map((p) => showValue(p))
    .join(', ');
  return paths.length > LISTED_PATHS ? `${shown} and ${paths.length - LISTED_PATHS} more` : shown;
}

// An agent name stands for its family; a model id or alias (`gpt-5`) for its vendor, which it excludes whole.
function familyOf(builder: string, registry: ReturnType<typeof loadAgentRegistry>): string {
  if (builder.trim() === '') throw new UsageError("Expected --builder-family to name the builder's model family");
  const known = registry.entries[builder] !== undefined || (BUILTIN_AGENTS as readonly string[]).includes(builder);
  if (known) return resolveAgent(builder, registry).family;
  if (knownVendor(builder) === null) {
    writeFd(
      2,
      `leap-jury: the builder ${showValue(builder)} is not a vendor or model the family table knows (src/family.ts): only reviewers of family ${showValue(vendorFamily(builder))} are refused\n`,
    );
  }
  return vendorFamily(builder);
}
