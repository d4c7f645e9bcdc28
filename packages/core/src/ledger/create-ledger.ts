// `leap-ledger init`: from a plan to a canonical ledger.
// A plan is plain text. Its first non-blank line is the ledger's title (a
// leading `#`, `##`... and the blanks after it are dropped); every later
// non-blank line is one step, in order. A step line may start with a list marker
// (`- `, `* `, `+ `, `1. `, `1) `) and an unchecked box `[ ] `, both dropped, so a
// Markdown list pastes as is; a checked box is an error (a new ledger starts
// unchecked), and so is a heading (a heading is not a step). It may end with
// `<!-- criterion: K -->` (the ledger's own marker) or `(criterion K)` to link
// acceptance criterion K (`(criterion one)` stays title text). `#K` is
// deliberately not a form: "fix #12" is a title.

import { FileFormatError, UsageError, showValue } from '../errors.js';
import { trimBlanks } from './_markdown-lines.js';
import { showTitle } from './_show.js';
import { CARRIAGE_RETURN, MALFORMED, StepRead, readListItem } from './_step-line.js';
import type { LedgerPlan, ParsedPlan, PlanStep } from './types.js';

/** A canonical ledger: `# TITLE`, `## Steps`, one `- [ ] STEP <!-- criterion: K -->` a step, LF endings. */
export function renderLedger(plan: LedgerPlan): string {
  if (trimBlanks(plan.title) === '' || /[\r\n]/.test(plan.title)) {
    throw new UsageError(`Expected the ledger title to be one non-empty line, got ${showValue(plan.title)}`);
  }
  const seen = new Map<string, number>();
  const lines = [`# ${plan.title}`, '', '## Steps', ''];
  plan.steps.forEach((step, i) => {
    const criterion = step.criterion ?? null;
    if (criterion !== null && (!Number.isSafeInteger(criterion) || criterion < 1)) {
      throw new UsageError(`Expected steps[${i}].criterion to be a positive integer, got ${showValue(criterion)}`);
    }
    const problem = checkTitle(step.title);
    if (problem !== null) throw new UsageError(`steps[${i}]: ${problem}`);
    const first = seen.get(step.title);
    if (first !== undefined) throw new UsageError(`steps[${i}]: duplicate title ${showTitle(step.title)} (same as steps[${first}])`);
    seen.set(step.title, i);
    lines.push(`- [ ] ${step.title}${criterion === null ? '' : ` <!-- criterion: ${criterion} -->`}`);
  });
  return `${lines.join('\n')}\n`;
}

/** Read a plan (see above); a FileFormatError naming the line of an empty, duplicate or malformed step. */
export function parsePlan(text: string, file = '<stdin>'): ParsedPlan {
  let title: string | null = null;
  let titleLine = 0;
  const steps: Array<Required<PlanStep>> = [];
  const seen = new Map<string, number>();
  const lines = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split('\n');
  for (let n = 1; n <= lines.length; n++) {
    const raw = lines[n - 1] as string;
    const line = trimBlanks(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    if (line === '') continue;
    if (title === null) {
      title = trimBlanks(line.replace(/^#{1,6}(?=[ \t]|$)/, ''));
      titleLine = n;
      if (title === '') throw new FileFormatError(file, n, 'empty title: the first line of a plan is the ledger title');
      continue;
    }
    const step = readPlanStep(line);
    if (typeof step === 'string') throw new FileFormatError(file, n, step);
    const first = seen.get(step.title);
    if (first !== undefined) throw new FileFormatError(file, n, `duplicate step ${showTitle(step.title)} (first at line ${first})`);
    seen.set(step.title, n);
    steps.push(step);
  }
  if (title === null) throw new FileFormatError(file, 1, 'empty plan: expected a title line, then one step a line');
  if (steps.length === 0) throw new FileFormatError(file, titleLine, 'the plan has a title but no steps (one step a line after the title)');
  return { title, steps };
}

// One non-blank plan line after the title: a step, or what is wrong with it.
function readPlanStep(line: string): Required<PlanStep> | string {
  if (/^#{1,6}(?:[ \t]|$)/.test(line)) return `a heading is not a step, found ${showTitle(line)}`;
  let rest = line.replace(/^(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]+|$)/, '');
  if (/^\[[xX]\](?:[ \t]|$)/.test(rest)) return 'a checked step: the steps of a new ledger start unchecked';
  rest = rest.replace(/^\[ \](?:[ \t]+|$)/, '');
  let criterion: number | null = null;
  const open = rest.endsWith(')') ? rest.lastIndexOf('(') : -1;
  const words =
    open === -1
      ? null
      : rest
          .slice(open + 1, -1)
          .trim()
          .split(/\s+/);
  if (words?.length === 2 && words[0]?.toLowerCase() === 'criterion' && /^[0-9]+$/.test(words[1] as string)) {
    if (!/^[1-9][0-9]*$/.test(words[1] as string) || !Number.isSafeInteger(Number(words[1]))) {
      return `expected "(criterion K)" with K a positive integer, found ${showTitle(rest.slice(open))}`;
    }
    criterion = Number(words[1]);
    rest = trimBlanks(rest.slice(0, open));
  }
  if (rest === '') return 'empty step: expected a title';
  const read = readLine(rest);
  if (typeof read === 'string') return read;
  if (read.criterion !== null && criterion !== null) return 'two criterion links: use "(criterion K)" or "<!-- criterion: K -->", not both';
  return { title: read.title, criterion: read.criterion ?? criterion };
}

// Why a title would not read back from its ledger line as itself, or null when it would.
function checkTitle(title: string): string | null {
  if (/[\r\n]/.test(title)) return `a title is one line, got ${showTitle(title)}`;
  const read = readLine(title);
  if (typeof read === 'string') return read;
  if (read.title !== title || read.criterion !== null) {
    return `title ${showTitle(title)} would not read back as itself (blanks around it, or a trailing marker comment)`;
  }
  return null;
}

// Read `- [ ] ${title}` as the ledger would: the step and its title, or what is wrong with it.
function readLine(title: string): (StepRead & { title: string }) | string {
  const line = `- [ ] ${title}`;
  const read = new StepRead();
  if (readListItem(line, 0, line.length, read) === MALFORMED) return read.problem;
  const found = line.slice(read.titleStart, read.titleEnd);
  return found.includes('\r') ? CARRIAGE_RETURN : Object.assign(read, { title: found });
}
