// Leaves in a run: the planner, agents that commit on their own or edit the state folder, verifiers that fail.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git } from '@leap/test-utils';
import { runTdd } from '../src/index.js';
import {
  IMPL1,
  REFACTORED1,
  TEST1,
  cleanEnv,
  commandAgents,
  makeProject,
  pass,
  readEvents,
  receivedPrompt,
  redTest,
  scriptedAgents,
  slugSteps,
  stepMoves,
  subjects,
  type StepEdits,
  oneStepRun,
} from './helpers.js';

const leaves = suite('runTdd: leaves');
leaves.after.each(cleanupTempDirs);

const TITLE = 'Lowercase and join with dashes';
const options = oneStepRun;

leaves('the planner turns the criteria into the ledger; what it edits is kept aside, not committed', async () => {
  const repo = makeProject();
  const agents = scriptedAgents(
    stepMoves(1, TEST1, IMPL1, REFACTORED1),
    [pass(), pass(), pass()],
    [{ answer: `Slugify\n- ${TITLE} (criterion 1)\n`, edits: [{ path: 'notes.txt', content: 'planner was here' }] }],
  );
  // Unsandboxed: this is the conductor's recovery from a leaf that tampers, for a run with --sandbox off (sandboxed,
  // the same leaf is refused by the file system: sandboxed-run.test.ts).
  const result = await runTdd(options(repo, agents.file, { planFile: undefined, planner: 'plan', sandbox: 'off' }));
  assert.is(result.code, 0, JSON.stringify(result.bail));
  assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
  assert.match(receivedPrompt(agents.dir, 'plan', 0), '1. slugify lowercases the words and joins them with dashes');
  assert.is(git(repo, 'ls-files', 'notes.txt'), '');
  const launch = readEvents(repo).find((e) => e.leaf === 'plan' && e.event === 'launch');
  assert.equal([launch?.actor, launch?.step], ['planner', null]);
  assert.match(
    readFileSync(join(repo, '.tdd/issues/1.thread.md'), 'utf8'),
    'the planner changed files; they do not count',
  );
});

leaves('a planner answer that is not a plan, or leaves a criterion out, bails agent-failed', async () => {
  for (const [answer, expected] of [
    ['I would rather not.', /not a plan: .*has a title but no steps/],
    ['Plan\nSomething else\n', /does not cover the issue: no step covers criterion 1/],
  ] as const) {
    const repo = makeProject();
    const agents = scriptedAgents([], [], [{ answer }]);
    const result = await runTdd(options(repo, agents.file, { planFile: undefined, planner: 'plan' }));
    assert.is(result.bail?.cause, 'agent-failed');
    assert.match(result.bail?.narration ?? '', expected);
    assert.equal(subjects(repo), []);
  }
});

leaves(
  'an agent that commits on its own, edits the ledger and leaves the branch: folded, undone, back on the branch',
  async () => {
    const repo = makeProject();
    const [, green, refactor] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
    const red = {
      edits: [
        redTest(1, TEST1),
        { path: '.tdd/issue-1.md', content: '# hijacked\n\n## Steps\n\n- [x] ' + TITLE + '\n' },
      ],
      commit: 'wip: my own commit',
      answer: 'Committed it myself.',
    };
    const agents = scriptedAgents([red, green!, refactor!], [pass(), pass(), pass()]);
    // Unsandboxed: this is the conductor's recovery from a leaf that tampers, for a run with --sandbox off (sandboxed,
    // the same leaf is refused by the file system: sandboxed-run.test.ts).
    const result = await runTdd(options(repo, agents.file, { sandbox: 'off' }));
    assert.is(result.code, 0, JSON.stringify(result.bail));
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
    const thread = readFileSync(join(repo, '.tdd/issues/1.thread.md'), 'utf8');
    assert.match(thread, 'the leaf committed on its own; its commits are folded into the red commit');
    assert.match(thread, 'a leaf edited the state folder (.tdd/issue-1.md)');
    assert.match(
      git(repo, 'show', 'HEAD:.tdd/issue-1.md'),
      '- [x] Lowercase and join with dashes <!-- criterion: 1 -->',
    );
  },
);

leaves(
  'leaves that plant state files (one committed, one not), detach HEAD or switch branch: back on the branch, folded, the files gone',
  async () => {
    const repo = makeProject();
    const steps = slugSteps([TITLE]);
    const step = steps[TITLE] as StepEdits;
    // Named like a ledger, so the state folder's .gitignore lets git see them.
    const committed = '.tdd/issue-9 it\'s "planted" $(x) `y` ü.md';
    const untracked = '.tdd/issue-10 left behind.md';
    step.red = {
      ...step.red!,
      extra: [{ path: committed, content: "not the run's\n" }],
      git: [
        ['add', '-A'],
        ['commit', '-q', '-m', 'wip: mine'],
        ['checkout', '-q', '--detach'],
      ],
    };
    step.green = {
      ...step.green!,
      extra: [{ path: untracked, content: 'nor this\n' }],
      git: [['checkout', '-q', '-b', 'elsewhere']],
    };
    const agents = commandAgents(steps);
    // Unsandboxed: this is the conductor's recovery from a leaf that tampers, for a run with --sandbox off (sandboxed,
    // the same leaf is refused by the file system: sandboxed-run.test.ts).
    const result = await runTdd(options(repo, agents.file, { testCmd: 'node --test test/', sandbox: 'off' }));
    assert.is(result.code, 0, JSON.stringify(result.bail));
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
    assert.is(git(repo, 'symbolic-ref', 'HEAD').trim(), 'refs/heads/leap/issue-1');
    const thread = readFileSync(join(repo, '.tdd/issues/1.thread.md'), 'utf8');
    assert.match(thread, 'the leaf left the branch (detached HEAD); back on leap/issue-1');
    assert.match(thread, 'the leaf left the branch (refs/heads/elsewhere); back on leap/issue-1');
    assert.match(thread, 'the leaf committed on its own; its commits are folded into the red commit');
    for (const planted of [committed, untracked]) {
      assert.match(thread, `a leaf edited the state folder (${planted})`);
      assert.not.ok(existsSync(join(repo, planted)), planted);
      assert.is(git(repo, 'log', '--format=', '--name-only', 'main..HEAD', '--', planted), '');
    }
    assert.is(git(repo, 'status', '--porcelain'), '');
  },
);

leaves('a verifier whose answer cannot be read is asked once more; twice is agent-failed', async () => {
  const repo = makeProject();
  const [red, green, refactor] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
  const ok = scriptedAgents([red!, green!, refactor!], [{ answer: 'looks fine to me' }, pass(), pass(), pass()]);
  const result = await runTdd(options(repo, ok.file));
  assert.is(result.code, 0, JSON.stringify(result.bail));
  assert.equal(
    result.verdicts.map((v) => v.verdict),
    ['ERROR', 'PASS', 'PASS', 'PASS'],
  );
  const repo2 = makeProject();
  const bad = scriptedAgents([red!], [{ answer: 'hmm' }, { answer: 'hmm' }]);
  const failed = await runTdd(options(repo2, bad.file));
  assert.is(failed.bail?.cause, 'agent-failed');
  assert.match(failed.bail?.narration ?? '', 'unreadable verdict');
});

leaves(
  'a verifier CLI that exits with an error bails agent-failed with its words; one that hangs twice, killed-timeout',
  async () => {
    const repo = makeProject();
    const [red] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
    const agents = scriptedAgents([red!], [{ answer: 'x', stderr: 'error: quota exceeded for this key\n', exit: 1 }]);
    const result = await runTdd(options(repo, agents.file));
    assert.is(result.bail?.cause, 'agent-failed');
    assert.match(result.bail?.narration ?? '', 'quota exceeded for this key');
    const repo2 = makeProject();
    const hung = scriptedAgents([red!], [{ hang: true }, { hang: true }]);
    // The suite runs (the baseline, red's ground truth) have a time limit of their own: a leaf's can be short.
    const env = cleanEnv({ VERI_TIMEOUT: '2', VERI_SUITE_TIMEOUT: '60', VERI_KILL_AFTER: '0.1' });
    const timed = await runTdd(options(repo2, hung.file, { env }));
    assert.is(timed.bail?.cause, 'killed-timeout');
    assert.equal(subjects(repo2), ['plan: issue 1']);
    assert.equal(
      readEvents(repo2)
        .filter((e) => e.event === 'exit')
        .map((e) => `${e.leaf} ${e.status}`),
      ['develop-red exited', 'verify-red killed-timeout', 'verify-red killed-timeout'],
    );
  },
);

leaves.run();
