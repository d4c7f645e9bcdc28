// The ledger (CONTRACT section 6): an edit changes ONE line of it, every other byte kept.
import { FileFormatError, UsageError } from '../errors.js';
import { walkMarkdown } from './markdown.js';
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

/** Parse a ledger's Markdown; a FileFormatError names the file and line of its first problem. */
export function parseLedger(text: string, file = '<stdin>'): Ledger {
  const { steps, stepsLine } = scanValid(text, file);
  return { file, text, steps, stepsLine };
}

/** Every problem of a ledger, in line order; empty exactly when parseLedger succeeds. */
export const validateLedger = (text: string, file = '<stdin>'): LedgerProblem[] =>
  scan(text).problems.map((problem) => ({ file, ...problem }));

export const serializeLedger = (ledger: Ledger): string => ledger.text;

const first = (ledger: Ledger, state: StepState) => ledger.steps.find((s) => s.state === state) ?? null;
/** The step in flight: the first refactor-pending step, else the first todo step, else null. */
export const currentStep = (l: Ledger): LedgerStep | null => first(l, 'refactor-pending') ?? first(l, 'todo');
/** As currentStep, else the last done step, else null (an empty ledger). */
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
