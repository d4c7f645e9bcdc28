// `leap-ledger init`: a plan is a title line, then one step a line; a step's `#K` is text, not a criterion link.
import { FileFormatError, UsageError, showValue } from '../errors.js';
import { trimBlanks } from './markdown.js';
import { readStepLine, showTitle, type StepLine } from './step-line.js';

export type PlanStep = { title: string; criterion?: number | null };
export type LedgerPlan = { title: string; steps: PlanStep[] };
/** What parsePlan reads: every step says whether it links a criterion. */
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

/** Read a plan; a FileFormatError names the line of an empty, duplicate or malformed step. */
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
