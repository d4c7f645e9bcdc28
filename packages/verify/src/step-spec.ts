// The behaviour spec of a step: the acceptance criterion its ledger line links to, read through the tracker.
import { readFileSync } from 'node:fs';
import { type TrackerPlugin, FileFormatError, UsageError } from '@leap/core';
import { readCriteria } from '@leap/core/ledger';

const HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;

/** Criterion `k` as written: its item line and the lines continuing it, up to the next criterion or heading. */
export function criterionBlock(body: string, k: number, source: string): string {
  const criteria = readCriteria(body, source);
  const criterion = criteria[k - 1];
  const listed = `the acceptance criteria list ${criteria.length}`;
  if (criterion === undefined)
    throw new FileFormatError(source, undefined, `the step links to criterion ${k}, but ${listed}`);
  const lines = body.split('\n');
  const stop = criteria[k]?.line ?? lines.length + 1;
  const block: string[] = [];
  for (let n = criterion.line; n < stop; n++) {
    const line = (lines[n - 1] as string).replace(/\r$/, '');
    if (n > criterion.line && HEADING.test(line)) break;
    block.push(line);
  }
  while (block.length > 1 && (block.at(-1) as string).trim() === '') block.pop();
  return block.join('\n');
}

export function allCriteria(body: string, source: string): string {
  return readCriteria(body, source)
    .map((c) => criterionBlock(body, c.index, source))
    .join('\n');
}

type StepSpecOptions = { tracker: TrackerPlugin; issue: number | null; criterion: number | null; specFile?: string };

/** `--spec FILE`, else criterion K of the issue, else all its criteria, else (no criteria section) its body. */
export async function readStepSpec(options: StepSpecOptions): Promise<string> {
  if (options.specFile !== undefined) {
    try {
      return readFileSync(options.specFile, 'utf8');
    } catch (cause) {
      throw new UsageError(`--spec ${options.specFile}: ${(cause as Error).message}`, { cause });
    }
  }
  const how = 'set VERI_ISSUE or pass --issue N (or give --spec FILE)';
  if (options.issue === null) throw new UsageError(`no issue to read the behaviour spec from: ${how}`);
  const issue = await options.tracker.readIssue(options.issue);
  const source = `issue ${options.issue} (${options.tracker.name} tracker)`;
  if (options.criterion !== null) return criterionBlock(issue.body, options.criterion, source);
  try {
    return allCriteria(issue.body, source);
  } catch (error) {
    if (error instanceof FileFormatError) return issue.body;
    throw error;
  }
}
