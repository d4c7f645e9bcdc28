// The blind verifier's prompt: no input below can carry a developer's prose (shas are checked hex). Add no input.
import { UsageError, checkOneOf, showValue } from '@leap/core';

const PHASES = ['red', 'green', 'refactor'] as const;
export type Phase = (typeof PHASES)[number];
export const checkPhase = (value: string | undefined): Phase => checkOneOf('PHASE', value ?? '(missing)', PHASES);
export type BoundedDiff = { text: string; cut: { shown: number; total: number } | null };
type PromptInput = { phase: Phase; stepTitle: string; spec: string; repoPath: string; baseCommit?: string | null };
export interface VerifyPromptInput extends PromptInput {
  tests: readonly { path: string; content: string | null }[];
  /** Refactor only: `git diff BASE`, as a read-only verifier has no shell; bounded (`cut` says so). */
  baseDiff?: BoundedDiff | null;
  /** Red only: the red commit's diff of the step's tests, bounded; shown with their paths, not their whole text. */
  redDiff?: (BoundedDiff & { commit: string }) | null;
}

const SHA = /^[0-9a-f]{7,64}$/;

const TASKS: Record<Phase, string> = {
  red: `A developer added the failing test(s) below for this step. The toolchain already ran the test
command: the suite fails with these tests and passes again without them.
PASS when the tests express the behaviour spec of this step, fail because that behaviour is
missing, and will pass once it exists. REJECT when they test something else, assert behaviour the
spec does not ask for, are trivial, or could pass without the behaviour.`,
  green: `A developer implemented this step. The toolchain already ran the test command: the suite passes.
Read the implementation in the repository. PASS when the code implements the behaviour spec in
general. REJECT when it special-cases the tests, hard-codes expected values, or weakens, skips or
deletes tests.`,
  refactor: `A developer refactored the code after this step. The toolchain already ran the test command: the
suite passes, and no test file changed since the base commit. Compare the repository with the base
commit (\`git diff BASE\`, below). PASS when the behaviour is unchanged and the code is at least as clear.
REJECT when behaviour changed or untested behaviour was added.`,
};

export const VERDICT_ANSWER_FORMAT = '{"verdict": "PASS" | "REJECT" | "BLOCKED", "reason": "<one or two sentences>"}';

export const BLOCKED_SENTENCE =
  'If the step cannot be done as written (the test cannot pass without breaking a criterion of the spec, ' +
  'or the spec contradicts itself), answer BLOCKED with the reason: the run stops and asks the user.';

export function buildVerifyPrompt(input: VerifyPromptInput): string {
  const base = input.baseCommit ?? null;
  const sha = `a hexadecimal sha (--base SHA), got ${showValue(base)}`;
  if (input.phase === 'refactor' && (base === null || !SHA.test(base)))
    throw new UsageError(`Expected the refactor's base commit as ${sha}`);
  if (input.phase !== 'refactor' && base !== null)
    throw new UsageError(`A base commit belongs to the refactor phase only, got ${showValue(base)} for ${input.phase}`);
  const header = [
    'You are a blind verifier in a test-driven loop. You never see the developer or their reasoning:',
    'judge only from the spec, the tests and the repository. Do not modify any file.',
    '',
    `Phase: ${input.phase}`,
    `Step: ${input.stepTitle}`,
    `Repository: ${input.repoPath}`,
  ];
  if (base !== null) header.push(`Base commit: ${base}`);
  const red = input.phase === 'red' ? (input.redDiff ?? null) : null;
  if (red !== null && !SHA.test(red.commit))
    throw new UsageError(`Expected the red commit as a hexadecimal sha, got ${showValue(red.commit)}`);
  const paths = input.tests.map((file) => `- ${file.path}`).join('\n');
  const whole = (text: string | null) => (text === null ? '(missing from the work tree)' : fenced(text));
  const tests =
    input.tests.length === 0
      ? ['(no test file)']
      : red === null
        ? input.tests.map((f) => `### ${f.path}\n${whole(f.content)}`)
        : [
            `The red commit ${red.commit} changed these test files (read them whole in the repository):\n${paths}`,
            `### What the red commit changed in them (\`git show ${red.commit} -- FILES\`)\n${diffSection(red)}`,
          ];
  const changes =
    base === null
      ? []
      : [`## Changes since the base commit (\`git diff ${base}\`)\n${diffSection(input.baseDiff ?? null)}`];
  const sections = [
    header.join('\n'),
    `## Your task\n${TASKS[input.phase].replace('`git diff BASE`', base === null ? '' : `\`git diff ${base}\``)}`,
    `## Behaviour spec (from the issue)\n${fenced(input.spec)}`,
    `## Tests of this step\n${tests.join('\n\n')}`,
    ...changes,
    '## Answer\nAnswer with exactly one JSON object and nothing else, no code fence:\n' +
      `${VERDICT_ANSWER_FORMAT}\n${BLOCKED_SENTENCE}`,
  ];
  return `${sections.join('\n\n')}\n`;
}

function diffSection(diff: BoundedDiff | null): string {
  if (diff === null) return '(not gathered: read the repository against the base commit)';
  if (diff.text === '') return '(no change)';
  if (diff.cut === null) return fenced(diff.text);
  const shown = `the first ${diff.cut.shown} of ${diff.cut.total} bytes of the diff are shown`;
  return `${fenced(diff.text)}\n(cut here: ${shown}; read the rest from the repository)`;
}

// A code fence longer than any run of backticks inside, so file content can never close it.
export function fenced(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text}${text.endsWith('\n') ? '' : '\n'}${fence}`;
}
