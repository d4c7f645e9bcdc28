// Scoring one juror: answered well (pass 1 or refuse -1), answered badly (-1), never answered (0).
import type { AgentAnswer, AgentPlugin } from '@leap/core';
import { lastVerdictObject } from '../answer-json.js';
import type { AgentLeafResult } from '../run-agent-leaf.js';
import { answerProblem } from '../validate-answer.js';

export type Finding = { severity: string; message: string };

export interface SeatVerdict {
  verdict: 'pass' | 'refuse' | 'none';
  value: -1 | 0 | 1;
  findings: Finding[];
  reasoning?: string;
  note: string;
  rawTail?: string;
}

/** How many characters of a rejected answer the seat's record keeps (blind-tribunal 3.6 `raw_tail`). */
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
  const answer = object as { verdict: 'pass' | 'refuse'; lens: string; findings: string[]; reasoning: string };
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

// The last RAW_TAIL_CHARS characters, never starting on the second half of a split surrogate pair.
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
  let answer: AgentAnswer;
  try {
    answer = agent.parseAnswer(ran.stdout);
  } catch {
    return ran;
  }
  return verdictOf(answer).object !== null ? { ...ran, answer, failure: null, failureKind: null, dry: null } : ran;
}

// The answer's structured JSON when it has a "verdict", else the last such object of its text.
function verdictOf({ json, text }: AgentAnswer) {
  const structured = typeof json === 'object' && json !== null && 'verdict' in json;
  return { structured, object: structured ? json : lastVerdictObject(text) };
}
