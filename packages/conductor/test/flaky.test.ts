// Flaky tests seen, never ticked (issue 40 section 4): before the tick the suite runs a second time; a test that
// passes once and fails once is named in a `verdict` event of its own (`flaky`), the step is not ticked, and the run
// revises or, with no revision left, asks. A flaky test of the baseline is named at the start, never blamed on a step.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git } from '@leap/test-utils';
import { runTdd } from '../src/index.js';
import {
  commandAgents,
  makeProject,
  oneStepRun,
  readEvents,
  readLog,
  slugSteps,
  subjects,
  writeRepoFile,
  type StepEdits,
} from './helpers.js';

const flaky = suite('runTdd: flaky tests');
flaky.after.each(cleanupTempDirs);

const TITLE = 'Lowercase and join with dashes';
const TEST_NAME = `step 1: ${TITLE}`;

// Code whose value alternates with each call (a count kept in the file `where`, ignored): right on the first, wrong on
// the second.
const alternating = (where: string) =>
  [
    "import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';",
    `const file = new URL('${where}', import.meta.url);`,
    'export function value() {',
    "  let n = 0;\n  try { n = Number(readFileSync(file, 'utf8')); } catch {}",
    "  mkdirSync(new URL('.', file), { recursive: true });\n  writeFileSync(file, String(n + 1));",
    '  return n % 2 === 0 ? 1 : 0;',
    '}',
    '',
  ].join('\n');
// The step's code: called by its test, counting in a top-level ignored folder (the copy its second run is made in
// links it in), so the suite's first run passes and its second fails.
const ALTERNATING = alternating('../counts/n');
const CALLING_TEST =
  "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { value } from '../src/step1.js';\n\n";

function project(): string {
  const repo = makeProject();
  writeRepoFile(repo, '.gitignore', '*.count\n/counts/\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'ignore counts');
  return repo;
}

// The step's moves: its red test calls the alternating code its green writes.
function flakySteps(): { steps: Record<string, StepEdits>; step: StepEdits } {
  const steps = slugSteps([TITLE]);
  const step = steps[TITLE] as StepEdits;
  step.red = {
    path: 'test/step1.test.js',
    content: `${CALLING_TEST}test(${JSON.stringify(TEST_NAME)}, () => assert.equal(value(), 1));\n`,
  };
  step.green = { path: 'src/step1.js', content: ALTERNATING };
  return { steps, step };
}

const flakyVerdicts = (repo: string) => readEvents(repo).filter((e) => e.event === 'verdict' && e.verdict === 'flaky');

flaky(
  'a green whose test passes once and fails once: a flaky verdict names the test, the revision is told, its fix lands',
  async () => {
    const repo = project();
    const { steps, step } = flakySteps();
    step['green-2'] = { path: 'src/step1.js', content: 'export const value = () => 1;\n' };
    step.refactor = { path: 'src/step1.js', content: '// Step 1\nexport const value = () => 1;\n' };
    const agents = commandAgents(steps);
    // Unsandboxed: the count is written through the copy's link to the tree's folder, which a sandboxed suite run cannot write.
    const result = await runTdd({ ...oneStepRun(repo, agents.file), sandbox: 'off' });
    assert.is(result.code, 0, JSON.stringify(result.bail));
    assert.equal(
      result.verdicts.map((v) => `${v.phase} ${v.verdict}`),
      ['red PASS', 'green flaky', 'green PASS', 'refactor PASS'],
    );
    assert.equal(
      flakyVerdicts(repo).map((e) => [e.phase, e.test, e.code, e.step]),
      [['green', TEST_NAME, 1, TITLE]],
    );
    // The step was not ticked on the flaky green: one green commit, the revision's.
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
    assert.is(git(repo, 'show', 'HEAD~1:src/step1.js'), 'export const value = () => 1;\n');
    const revision = readLog(agents.devLog).find((l) => l.env.LEAP_PHASE === 'green' && l.env.LEAP_ATTEMPT === '2');
    assert.match(revision?.prompt ?? '', `flaky: ${TEST_NAME} passed once and failed once on the same tree`);
    // The second run is a suite event of its own purpose: the step's tests alone, in a copy of the same tree.
    const greens = readEvents(repo).filter((e) => e.event === 'suite' && e.phase === 'green' && e.purpose !== 'canary');
    assert.equal(
      greens.slice(0, 2).map((e) => [e.purpose, e.code]),
      [
        [undefined, 0],
        ['rerun', 1],
      ],
    );
  },
);

flaky('with no revision left, a flaky test asks the user: needs-user naming it, the step not ticked', async () => {
  const repo = project();
  const result = await runTdd({
    ...oneStepRun(repo, commandAgents(flakySteps().steps).file),
    revisions: 0,
    sandbox: 'off',
  });
  assert.is(result.bail?.cause, 'needs-user');
  assert.match(
    result.bail?.narration ?? '',
    `is not ticked: a test passed once and failed once on the same tree (${TEST_NAME})`,
  );
  assert.equal(subjects(repo), ['plan: issue 1']);
  assert.match(readFileSync(join(repo, '.tdd', 'issue-1.md'), 'utf8'), `- [ ] ${TITLE}`);
});

flaky('a flaky test of the baseline is named at the start and never blamed on a step', async () => {
  const repo = project();
  // Counting in an ignored file beside it, which no copy holds: the tree's runs alternate.
  writeRepoFile(repo, 'src/old.js', alternating('./runs.count'));
  writeRepoFile(
    repo,
    'test/old.test.js',
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { value } from '../src/old.js';\n\ntest('old and flaky', () => assert.equal(value(), 1));\n",
  );
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'a flaky test');
  const result = await runTdd(oneStepRun(repo, commandAgents(slugSteps([TITLE])).file));
  assert.is(result.code, 0, JSON.stringify(result.bail));
  assert.equal(
    flakyVerdicts(repo).map((e) => [e.phase, e.test]),
    [['baseline', 'old and flaky']],
  );
  const thread = readFileSync(join(repo, '.tdd/issues/1.thread.md'), 'utf8');
  assert.match(
    thread,
    'flaky before any change (passed once and failed once on the same tree; never blamed on a step): old and flaky',
  );
  assert.equal(
    result.verdicts.map((v) => `${v.phase} ${v.verdict}`),
    ['red PASS', 'green PASS', 'refactor PASS'],
  );
});

flaky.run();
