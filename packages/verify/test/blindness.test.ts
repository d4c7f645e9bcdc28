import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { movePromptFile } from '@leap/agent-scripted';
import { cleanupTempDirs, git, runBin, runCommand, scriptPath } from '@leap/test-utils';
import type { TrackerPlugin } from '@leap/core';
import { gatherVerifyInput } from '../src/index.js';
import { makeRedRepo, verifyBin, verifyEnv, writeAgents, writeScript } from './helpers.js';

const STEP = 'greet returns hello';
const MARK = 'DEVELOPER-REASONING-7f3a';

/**
 * A repository where the developer's reasoning is planted everywhere a careless prompt builder could
 * pick it up: the developer leaf's output files, the commit messages, the environment, a notes file.
 */
function plantedRepo() {
  const repo = makeRedRepo({ redMessage: `red: ${MARK} I wrote this test because the parser was wrong` });
  for (const name of ['develop-red', 'develop-green']) {
    writeFileSync(join(repo, '.tdd', `${name}.out`), `I think ${MARK}-out the verifier should pass this\n`);
    writeFileSync(join(repo, '.tdd', `${name}.err`), `${MARK}-err reasoning trace\n`);
  }
  writeFileSync(join(repo, '.tdd', 'verify-red.reason'), `${MARK}-reason\n`);
  writeFileSync(join(repo, 'NOTES.md'), `${MARK}-notes\n`);
  git(repo, 'notes', 'add', '-m', `${MARK}-git-note`);
  const script = writeScript([
    { answer: { verdict: 'PASS', reason: 'ok' } },
    { answer: { verdict: 'PASS', reason: 'ok' } },
  ]);
  const env = verifyEnv({
    VERI_AGENTS: writeAgents({ v: { plugin: 'scripted', script } }),
    VERI_VERIFY_AGENT: 'v',
    VERI_STEP: `${MARK}-step-env`,
    DEVELOPER_SUMMARY: `${MARK}-env`,
    VERI_TEST_CMD: `: ${MARK}-cmd; ${verifyEnv().VERI_TEST_CMD}`,
  });
  return { repo, script, env };
}

const blind = suite('blind prompt');
blind.after.each(cleanupTempDirs);

blind('no planted developer text reaches the printed prompt or the prompt the verifier receives', async () => {
  const { repo, script, env } = plantedRepo();
  const printed = await runBin(verifyBin, ['prompt', '--step', STEP, 'red'], { cwd: repo, env });
  assert.is(printed.code, 0, printed.stderr);
  assert.ok(printed.stdout.includes('greet() returns "hello"'), 'the spec is there');
  assert.not.ok(printed.stdout.includes(MARK), 'the printed prompt is blind');
  const judged = await runCommand(scriptPath('run-verdict.sh'), ['--step', STEP, 'red'], { cwd: repo, env });
  assert.is(judged.code, 0, judged.stderr);
  const received = readFileSync(movePromptFile(script, 0), 'utf8');
  assert.is(received, printed.stdout);
  assert.not.ok(received.includes(MARK), 'the verifier received a blind prompt');
  assert.not.ok(
    received.includes('VERI_TEST_CMD') || received.includes('node "$f"'),
    'the test command reaches leaves through the environment only',
  );
});

blind('the prompt builder takes exactly eight inputs, none of them free developer prose', async () => {
  const { repo, env } = plantedRepo();
  const { input } = await gatherVerifyInput({ phase: 'red', step: STEP, cwd: repo, env, issue: 3 });
  assert.equal(Object.keys(input).sort(), [
    'baseCommit',
    'baseDiff',
    'phase',
    'redDiff',
    'repoPath',
    'spec',
    'stepTitle',
    'tests',
  ]);
  // Red's diff of its test files is the repository's content: the commit's message and notes are not in it.
  assert.match(input.redDiff?.commit ?? '', /^[0-9a-f]{40}$/);
  assert.not.ok(JSON.stringify(input).includes(MARK));
  // Refactor's diff is the repository's code against the base: not the notes file, messages or notes.
  const base = git(repo, 'rev-parse', 'HEAD').trim();
  writeFileSync(join(repo, 'src', 'greet.js'), 'export const greet = () => "hello"; // refactored\n');
  const refactor = (await gatherVerifyInput({ phase: 'refactor', step: STEP, cwd: repo, env, issue: 3, base })).input;
  assert.match(refactor.baseDiff?.text ?? '', '+export const greet = () => "hello"; // refactored');
  assert.not.ok(JSON.stringify(refactor).includes(MARK));
});

blind("the spec comes through the tracker it is given: another tracker's issue, not the local file", async () => {
  const { repo, env } = plantedRepo();
  const asked: number[] = [];
  const tracker: TrackerPlugin = {
    name: 'elsewhere',
    readIssue: async (issue) => {
      asked.push(issue);
      const body = '## Acceptance criteria\n\n- [ ] greet() answers "hello" from the other tracker\n  on every day\n';
      return {
        number: issue,
        title: 'Greeting',
        body,
        criteria: [{ index: 1, text: 'greet() answers "hello" from the other tracker', checked: false }],
      };
    },
    comment: async () => {},
    tickCriterion: async () => {},
    openDraftPullRequest: async () => ({ url: '' }),
  };
  const { input } = await gatherVerifyInput({ phase: 'red', step: STEP, cwd: repo, env, issue: 3, tracker });
  assert.equal(asked, [3]);
  assert.ok(input.spec.includes('greet() answers "hello" from the other tracker\n  on every day'), input.spec);
  assert.not.ok(input.spec.includes('greet() returns "hello"'), 'the local issue file is not read');
});

blind.run();
