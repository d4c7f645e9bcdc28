// The ledger (CONTRACT section 6): an edit changes ONE line of it, every other byte kept.
import { FileFormatError, UsageError, showValue } from '../errors.js';
import { trimBlanks, walkMarkdown } from './markdown.js';
import { MARKER, readPlainStep, readStepLine, showTitle } from './step-line.js';
import type { LedgerStep, StepLine, StepState } from './step-line.js';

/** A parsed ledger (`file` is `<stdin>` when none was given); `text` is kept whole, so writing it back is exact. */
export type Ledger = { file: string; text: string; steps: LedgerStep[]; stepsLine: number };

export type LedgerProblem = { file: string; line: number; message: string };
// spans: each step line's start and end offsets, flat.
type Scan = { steps: LedgerStep[]; spans: number[]; problems: Array<Omit<LedgerProblem, 'file'>>; stepsLine: number };
const UNCLOSED = 'a code fence or HTML comment opened here is never closed, so it hides';
const HIDES_ALL = 'the rest of the file, "## Steps" included';
const HIDES_REST = 'every line after it (none of them can be a step)';
const NO_STEPS = 'no "## Steps" heading: a ledger lists its steps under a level-2 heading "## Steps"';

// Every step and every problem, in line order: parse, validate and the editors share it, so they cannot disagree.
function scan(text: string): Scan {
  const s: Scan = { steps: [], spans: [], problems: [], stepsLine: 0 };
  const problem = (line: number, message: string) => s.problems.push({ line, message });
  let [inSection, sectionEnd] = [false, 0];
  const unclosed = walkMarkdown(text, (start, end, n, level, heading) => {
    if (level === 2 && heading === 'Steps') {
      if (s.stepsLine !== 0) problem(n, `a second "## Steps" heading (the first is at line ${s.stepsLine})`);
      [s.stepsLine, inSection] = [s.stepsLine || n, true];
    } else if (level > 0) {
      if (inSection && level <= 2) [inSection, sectionEnd] = [false, sectionEnd || n];
    } else if (inSection) {
      const read = readPlainStep(text, start, end, n) ?? readStepLine(text.slice(start, end));
      if (typeof read === 'string') problem(n, read);
      else if (read !== null) {
        const { title, state, criterion } = read;
        s.steps.push('box' in read ? { title, state, line: n, criterion } : read);
        s.spans.push(start, end);
      }
    }
  });
  const hides = `${UNCLOSED} ${s.stepsLine ? HIDES_REST : HIDES_ALL}`;
  if (unclosed !== 0 && (sectionEnd === 0 || unclosed < sectionEnd)) problem(unclosed, hides);
  else if (s.stepsLine === 0) problem(1, NO_STEPS);
  const seen = new Map<string, number>();
  for (const { title, line } of s.steps) {
    if (seen.has(title)) problem(line, `duplicate title ${showTitle(title)} (first at line ${seen.get(title)})`);
    else seen.set(title, line);
  }
  s.problems.sort((a, b) => a.line - b.line);
  return s;
}

function scanValid(text: string, file: string): Scan {
  const s = scan(text);
  const first = s.problems[0];
  if (first !== undefined) throw new FileFormatError(file, first.line, first.message);
  return s;
}

export function parseLedger(text: string, file = '<stdin>'): Ledger {
  const { steps, stepsLine } = scanValid(text, file);
  return { file, text, steps, stepsLine };
}

/** Every problem of a ledger, in line order; empty exactly when parseLedger succeeds. */
export const validateLedger = (text: string, file = '<stdin>'): LedgerProblem[] =>
  scan(text).problems.map((problem) => ({ file, ...problem }));

export const serializeLedger = (ledger: Ledger): string => ledger.text;

const first = (ledger: Ledger, state: StepState) => ledger.steps.find((s) => s.state === state) ?? null;
export const currentStep = (l: Ledger): LedgerStep | null => first(l, 'refactor-pending') ?? first(l, 'todo');
export const currentOrLastDone = (l: Ledger): LedgerStep | null => currentStep(l) ?? l.steps.at(-1) ?? null;
export const nextUnchecked = (l: Ledger): LedgerStep | null => first(l, 'todo');
export const nextPendingRefactor = (l: Ledger): LedgerStep | null => first(l, 'refactor-pending');

/** The step titled exactly `title`; a UsageError naming the file (and a near miss) when there is none. */
export const findStep = (ledger: Ledger, title: string): LedgerStep =>
  ledger.steps[stepIndex(ledger, title)] as LedgerStep;

function stepIndex({ file, steps }: Pick<Ledger, 'file' | 'steps'>, title: string): number {
  const index = steps.findIndex((step) => step.title === title);
  if (index !== -1) return index;
  // Case and runs of whitespace ignored: only to suggest a title, never to match one.
  const loose = (t: string): string => t.trim().replace(/\s+/g, ' ').toLowerCase();
  const near = steps.find((step) => loose(step.title) === loose(title));
  const count = `${steps.length} step${steps.length === 1 ? '' : 's'}, none matches`;
  const hint = near === undefined ? count : `did you mean ${showTitle(near.title)} (line ${near.line})?`;
  throw new UsageError(`${file}: no step titled ${showTitle(title)} (titles match exactly; ${hint})`);
}

const mark = (l: string, r: StepLine): string => l.slice(0, r.end) + MARKER + l.slice(r.end);
const unmark = (l: string, r: StepLine): string => l.slice(0, r.cut) + l.slice(r.cutEnd);

/** Mark a todo step done and refactor-pending (`- [ ] T` -> `- [x] T <!-- refactor-pending -->`). */
export const tickStep = editor('todo', 'tick', (l, r) => mark(`${l.slice(0, r.box)}x${l.slice(r.box + 1)}`, r));

export const setRefactorPending = editor('done', 'mark refactor-pending', mark);

/** Remove the refactor-pending marker and the blanks before it: refactor-pending -> done. */
export const clearRefactorPending = editor('refactor-pending', 'clear refactor-pending on', unmark);

// Rewrite the line of the step titled `title`, in state `from`; its ending and every other byte stay.
function editor(from: StepState, verb: string, edit: (line: string, read: StepLine) => string) {
  return (text: string, title: string, file = '<stdin>'): string => {
    const { steps, spans } = scanValid(text, file);
    const i = stepIndex({ file, steps }, title);
    const step = steps[i] as LedgerStep;
    if (step.state !== from) {
      const found = `expected a ${from} step, found a ${step.state} one`;
      throw new UsageError(`${file}:${step.line}: cannot ${verb} step ${showTitle(title)}: ${found}`);
    }
    const [start, end] = [spans[2 * i] as number, spans[2 * i + 1] as number];
    const line = text.slice(start, end);
    return text.slice(0, start) + edit(line, readStepLine(line) as StepLine) + text.slice(end);
  };
}

// `leap-ledger init`: a plan is a title line, then one step a line; a step's `#K` is text, not a criterion link.
export type PlanStep = { title: string; criterion?: number | null };
export type LedgerPlan = { title: string; steps: PlanStep[] };
export type ParsedPlan = { title: string; steps: Array<Required<PlanStep>> };

/** A canonical ledger: `# TITLE`, `## Steps`, one `- [ ] STEP <!-- criterion: K -->` a step, LF endings. */
export function renderLedger(plan: LedgerPlan): string {
  if (trimBlanks(plan.title) === '' || /[\r\n]/.test(plan.title))
    throw new UsageError(`Expected the ledger title to be one non-empty line, got ${showValue(plan.title)}`);
  const seen = new Map<string, number>();
  const lines = plan.steps.map(({ title, criterion = null }, i) => {
    if (criterion !== null && (!Number.isSafeInteger(criterion) || criterion < 1))
      throw new UsageError(`Expected steps[${i}].criterion to be a positive integer, got ${showValue(criterion)}`);
    const read = /[\r\n]/.test(title) ? `a title is one line, got ${showTitle(title)}` : readPlanLine(title);
    if (typeof read === 'string') throw new UsageError(`steps[${i}]: ${read}`);
    const back = 'would not read back as itself (blanks around it, or a trailing marker comment)';
    if (read.title !== title || read.criterion !== null)
      throw new UsageError(`steps[${i}]: title ${showTitle(title)} ${back}`);
    if (seen.has(title))
      throw new UsageError(`steps[${i}]: duplicate title ${showTitle(title)} (same as steps[${seen.get(title)}])`);
    seen.set(title, i);
    return `- [ ] ${title}${criterion === null ? '' : ` <!-- criterion: ${criterion} -->`}\n`;
  });
  return `# ${plan.title}\n\n## Steps\n\n${lines.join('')}`;
}

export function parsePlan(text: string, file = '<stdin>'): ParsedPlan {
  let [title, titleLine] = [null as string | null, 0];
  const steps: Array<Required<PlanStep>> = [];
  const seen = new Map<string, number>();
  (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split('\n').forEach((raw, i) => {
    const line = trimBlanks(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    if (line === '') return;
    if (title === null) {
      [title, titleLine] = [trimBlanks(line.replace(/^#{1,6}(?=[ \t]|$)/, '')), i + 1];
      if (title === '')
        throw new FileFormatError(file, i + 1, 'empty title: the first line of a plan is the ledger title');
      return;
    }
    const step = readPlanStep(line);
    if (typeof step === 'string') throw new FileFormatError(file, i + 1, step);
    const first = seen.get(step.title);
    if (first !== undefined)
      throw new FileFormatError(file, i + 1, `duplicate step ${showTitle(step.title)} (first at line ${first})`);
    seen.set(step.title, i + 1);
    steps.push(step);
  });
  if (title === null) throw new FileFormatError(file, 1, 'empty plan: expected a title line, then one step a line');
  if (steps.length === 0)
    throw new FileFormatError(file, titleLine, 'the plan has a title but no steps (one step a line after the title)');
  return { title, steps };
}

function readPlanStep(line: string): Required<PlanStep> | string {
  if (/^#{1,6}(?:[ \t]|$)/.test(line)) return `a heading is not a step, found ${showTitle(line)}`;
  let rest = line.replace(/^(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]+|$)/, '');
  if (/^\[[xX]\](?:[ \t]|$)/.test(rest)) return 'a checked step: the steps of a new ledger start unchecked';
  rest = rest.replace(/^\[ \](?:[ \t]+|$)/, '');
  let criterion: number | null = null;
  const link = /\(\s*criterion\s+([0-9]+)\s*\)$/i.exec(rest);
  if (link !== null) {
    criterion = /^[1-9][0-9]*$/.test(link[1] as string) ? Number(link[1]) : 0;
    if (!Number.isSafeInteger(criterion) || criterion < 1)
      return `expected "(criterion K)" with K a positive integer, found ${showTitle(link[0])}`;
    rest = trimBlanks(rest.slice(0, link.index));
  }
  if (rest === '') return 'empty step: expected a title';
  const read = readPlanLine(rest);
  if (typeof read === 'string') return read;
  if (read.criterion !== null && criterion !== null)
    return 'two criterion links: use "(criterion K)" or "<!-- criterion: K -->", not both';
  return { title: read.title, criterion: read.criterion ?? criterion };
}

// A title as its ledger line `- [ ] TITLE` reads back (a list item, so never null).
const readPlanLine = (title: string): StepLine | string => readStepLine(`- [ ] ${title}`) as StepLine | string;
