// The developer's and the planner's prompts; the verifier's is @leap/verify's blind one: nothing here reaches it.
import type { TrackerIssue } from '@leap/core';

export type Phase = 'red' | 'green' | 'refactor';

const TASKS: Record<Phase, string> = {
  red:
    'Write the failing test for this step, and nothing else: no implementation. ' +
    'The suite must fail because of your new test, and pass again with it set aside.',
  green: "Make the step's failing test pass with the smallest change to the code. Do not change any test file.",
  refactor:
    'Improve the code you wrote for this step (names, duplication, structure) without changing its behaviour. ' +
    'Do not change any test file; the suite must still pass.',
};

/** The honest way out, offered in one sentence (CONTRACT section 9). */
export const BLOCKED_LINE =
  'If the step cannot be done as written (the test contradicts the spec, the spec contradicts itself, ' +
  'a dependency is missing), make the last line of your output {"blocked": "REASON"}: ' +
  'the run stops and asks the user, and no revision is spent.';

export function developerPrompt(
  issue: TrackerIssue,
  step: string,
  phase: Phase,
  revision: { attempt: number; reason: string } | null,
): string {
  // Counted as the narration counts them: attempt 2 (develop-green-2) is revision 1.
  const revised =
    revision === null
      ? ''
      : `
## Revision ${revision.attempt - 1}

The verifier rejected the previous attempt, for this reason:

${revision.reason.trim()}

Fix what it names; keep what was right.
`;
  return `You are the developer of one phase of a test-first run on issue #${issue.number}: ${issue.title}

## The issue

${issue.body.trim()}

## Your step

${step}

## Your phase: ${phase}

${TASKS[phase]}

The project's test command is in the VERI_TEST_CMD environment variable. Do not commit, and do not edit anything in the
state folder (.tdd/): the conductor commits your work, keeps the ledger and ticks the issue. An independent verifier
checks your work by running the tests itself.

${BLOCKED_LINE}
${revised}
End with one short paragraph saying what you did.
`;
}

export function plannerPrompt(issue: TrackerIssue): string {
  const criteria = issue.criteria.map((c) => `${c.index}. ${c.text}${c.checked ? ' (already done)' : ''}\n`);
  return `You plan a test-first run on issue #${issue.number}: ${issue.title}

## The issue

${issue.body.trim()}

## Acceptance criteria

${criteria.join('')}
## Your answer

Split the work into small steps, each one Red -> Green -> Refactor cycle, each aligned with one criterion, covering
every criterion not already done. Answer with the plan only, as plain text: the first line is a short title; then one
step a line, an imperative title ending with "(criterion K)". Titles are unique and one line each. Do not edit files.
`;
}
