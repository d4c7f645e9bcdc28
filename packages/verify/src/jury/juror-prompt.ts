// A juror's prompt: tier header + lens preamble + envelope + output protocol (blind-tribunal 3.5), and its scoring.
import { orElse, type AgentAnswer, type AgentPlugin } from '@leap/core';
import { answerProblem, lastVerdictObject } from '../answer-json.js';
import type { AgentLeafResult } from '../run-agent-leaf.js';
import type { ReviewAnswer } from '../schemas/answer-schemas.js';

export type Tier = 'deep_state' | 'fast_structural' | 'operator_safety' | 'generalist';

export const TIER_SENTENCES: Readonly<Record<Tier, string>> = {
  deep_state: 'trace every state change across the whole workflow before you judge.',
  fast_structural: 'work fast and literal from the code in front of you.',
  operator_safety: 'think as the human who runs this on their own machine.',
  generalist: 'precise findings, no invented context.',
};

// The eight lenses, one per seat: each lens's tier (3.1) and what follows `LENS: NAME. Blind juror.` (3.5).
const SEATS: Readonly<Record<string, [Tier, string]>> = {
  defect: ['generalist', 'Check the code for logic flaws, syntax errors, and verify no new defects exist.'],
  proportion: ['generalist', 'Evaluate if this solution is over-engineered or appropriately scaled for the intent.'],
  operator_consequence: [
    'operator_safety',
    'Assess safety, destructive potential, and negative impacts if a human operator executes this code.',
  ],
  reversibility: [
    'deep_state',
    'Evaluate if this execution leaves irreversible side effects. ' +
      'If it fails mid-execution, can the system cleanly rollback?',
  ],
  state_continuity: [
    'deep_state',
    'Verify this slice does not orphan existing variables, ' +
      'clobber global state, or drop required context for downstream nodes.',
  ],
  resource_economy: [
    'fast_structural',
    'Check for unoptimized loops, redundant network/API calls, or unnecessary memory bloat.',
  ],
  boundary_condition: [
    'fast_structural',
    'Assume the inputs to this function are null, empty, unexpected types, ' +
      'or intentionally malformed. Does it fail gracefully?',
  ],
  telemetry: [
    'operator_safety',
    'Evaluate the observability of this slice. ' +
      'Are there sufficient logs or try/except blocks to easily diagnose a failure?',
  ],
};

const lensLead = (lens: string) => `LENS: ${lens.toUpperCase().replaceAll('_', ' ')}. Blind juror.`;

export const LENSES: Readonly<Record<string, { tier: Tier; preamble: string }>> = Object.fromEntries(
  Object.entries(SEATS).map(([lens, [tier, text]]) => [lens, { tier, preamble: `${lensLead(lens)} ${text}` }]),
);

export const LENS_PREAMBLES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(LENSES).map(([lens, { preamble }]) => [lens, preamble]),
);

// The tribunal's exact footer (3.5); `<your lens>` is filled with the literal lens id (v3).
const PROTOCOL =
  'CRITICAL OUTPUT PROTOCOL: You are a strict deterministic evaluator in an autonomous fail-closed loop. ' +
  'Return exactly ONE valid JSON object as your ENTIRE response, no markdown fences, no preamble, no postscript: ' +
  '{"verdict": "pass" | "refuse", "lens": "<your lens>", "findings": ["[severity] file:line claim"], ' +
  '"reasoning": "<concise>"}. At most 10 findings; cite locations, do not quote code. ' +
  'Judge PRIOR_ADJUDICATIONS honestly. A refuse halts the pipeline.';

// The footer says only "[severity]": a pass listing one the schema lacks (3.6) would be refused as malformed.
const SEVERITIES = "A finding's severity is one of blocker, major, minor, info.";

/** The tribunal's tier sentences are fragments written to follow this frame (one blind, read-only seat). */
export function tierHeader(tier: Tier): string {
  const frame = `You review a code change as one juror of a blind panel: ${TIER_SENTENCES[tier]}`;
  return `${frame} You cannot see who wrote it. Do not modify any file. ${SEVERITIES}`;
}

export function renderJurorPrompt(lens: string, envelope: string): string {
  // A lens outside the table reads as a generalist seat: the tier 3.2 calls "a reliable large generalist".
  const known = LENSES[lens];
  const header = tierHeader(known?.tier ?? 'generalist');
  const preamble = known?.preamble ?? `LENS: ${lens.toUpperCase()}. Blind juror.`;
  // A replacer function, so a `$` in the lens id is copied, not read as a replacement pattern.
  const footer = PROTOCOL.replace('<your lens>', () => lens);
  const body = envelope.endsWith('\n') ? envelope : `${envelope}\n`;
  return `${header}\n\n${preamble}\n\n${body}\n${footer}\n`;
}

// Scoring one juror: answered well (pass 1 or refuse -1), answered badly (-1), never answered (0).
export type Finding = { severity: string; message: string };
type Vote = { verdict: 'pass' | 'refuse' | 'none'; value: -1 | 0 | 1; findings: Finding[] };
export type SeatVerdict = Vote & { reasoning?: string; note: string; rawTail?: string };
export const RAW_TAIL_CHARS = 300;

/** Fail closed (blind-tribunal 3.6): no answer 0; a bad or off-lens answer, or a pass with a blocker or major, -1. */
export function judgeReview(leaf: AgentLeafResult, lens: string): SeatVerdict {
  if (leaf.answer === null)
    return { verdict: 'none', value: 0, findings: [], note: `never answered: ${leaf.failure ?? 'no answer'}` };
  const { structured, object } = verdictOf(leaf.answer);
  // Never the CLI's stdout, whose tail is its own bookkeeping (usage, cost, session) around the answer.
  const tail = rawTail(structured ? JSON.stringify(leaf.answer.json) : leaf.answer.text);
  const reject = (note: string): SeatVerdict => ({ verdict: 'refuse', value: -1, findings: [], note, rawTail: tail });
  if (object === null) return reject('answered garbage: no JSON object with a "verdict"');
  const problem = answerProblem('review.schema.json', object, `${leaf.name}'s answer`);
  if (problem !== null) return reject(`answered badly: ${problem}`);
  const answer = object as ReviewAnswer;
  const findings = answer.findings.map(parseFinding);
  const base = { findings, reasoning: answer.reasoning };
  const lenses = `lens ${JSON.stringify(answer.lens)}, seated for ${JSON.stringify(lens)}`;
  if (answer.lens !== lens) return { ...base, ...reject(`answered for ${lenses}`) };
  if (answer.verdict === 'refuse') return { ...base, verdict: 'refuse', value: -1, note: 'refused' };
  const contradiction = findings.find((f) => f.severity === 'blocker' || f.severity === 'major');
  if (contradiction !== undefined)
    return { ...base, ...reject(`a pass that lists a [${contradiction.severity}] finding is not a pass`) };
  const note = findings.length === 0 ? 'pass (no findings)' : `pass with ${findings.length} minor/info finding(s)`;
  return { ...base, verdict: 'pass', value: 1, note };
}

function rawTail(text: string): string {
  if (text.length <= RAW_TAIL_CHARS) return text;
  const tail = text.slice(-RAW_TAIL_CHARS);
  return /^[\uDC00-\uDFFF]/.test(tail) ? tail.slice(1) : tail;
}

export function parseFinding(text: string): Finding {
  const [, severity = 'unknown', message = text] = /^\[([a-z]+)\] ([\s\S]*)$/.exec(text) ?? [];
  return { severity, message };
}

/** A parsable verdict, then a non-zero exit, is an answer: only no answer is silence. */
export function answeredAnyway(agent: AgentPlugin, ran: AgentLeafResult): AgentLeafResult {
  if (ran.answer !== null || ran.status !== 'exited' || ran.code === 0 || ran.stdout.trim() === '') return ran;
  const answer = orElse(() => agent.parseAnswer(ran.stdout), null);
  if (answer === null || verdictOf(answer).object === null) return ran;
  return { ...ran, answer, failure: null, failureKind: null, dry: null };
}

function verdictOf({ json, text }: AgentAnswer) {
  const structured = typeof json === 'object' && json !== null && 'verdict' in json;
  return { structured, object: structured ? json : lastVerdictObject(text) };
}
