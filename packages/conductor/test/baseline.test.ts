// The baseline is a suite run like ground truth's (CONTRACT section 13): one `suite` event with phase
// `baseline`, written by leap-verify's runSuite, on the tree the run starts from; a resumed run does not run it
// again, nor (read from those events) any tree that passed with its test command; a failing one is the baseline-red bail quoting the suite's own last lines, recorded all the same.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { requestStop } from '@leap/core';
import { runTdd } from '../src/index.js';
import {
  TEST_CMD,
  cleanEnv,
  commandAgents,
  makeProject,
  planFile,
  readEvents,
  slugSteps,
  subjects,
  writeRepoFile,
} from './helpers.js';

const baseline = suite('runTdd: the baseline suite run');
baseline.after.each(cleanupTempDirs);

const TITLE = 'Lowercase and join with dashes';

/** HEAD's tree without the state folder: what the suite ran on in a clean work tree. */
function headTreeWithoutState(repo: string): string {
  const index = join(makeTempDir('leap-index-'), 'index');
  const env = { ...process.env, GIT_INDEX_FILE: index };
  execFileSync('git', ['read-tree', 'HEAD'], { cwd: repo, env });
  execFileSync('git', ['rm', '-r', '--cached', '--quiet', '--', '.tdd'], { cwd: repo, env });
  return execFileSync('git', ['write-tree'], { cwd: repo, env, encoding: 'utf8' }).trim();
}

// The counted runs; the canaries and the second runs are `suite` events of their own purpose.
const suites = (repo: string) => readEvents(repo).filter((e) => e.event === 'suite' && e.purpose === undefined);

baseline(
  'one suite event, phase baseline, on the start tree, the command byte for byte; a resumed run adds none',
  async () => {
    const repo = makeProject();
    const start = headTreeWithoutState(repo);
    // Quotes, a dollar, backticks and non-ASCII, single-quoted for bash: echoed, never run.
    const testCmd = `echo 'naïve $HOME \`id\` "q"' >&2; ${TEST_CMD}`;
    const agents = commandAgents(slugSteps([TITLE]));
    requestStop(join(repo, '.tdd/stop'), 'at-ledger');
    const options = {
      cwd: repo,
      issue: 1,
      testCmd,
      planFile: planFile([TITLE]),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env: cleanEnv(),
    };
    const first = await runTdd(options);
    assert.is(first.code, 3, JSON.stringify(first.bail));
    const [event, ...others] = suites(repo);
    assert.equal(others, []);
    assert.is(event?.phase, 'baseline');
    assert.is(event?.tree, start);
    assert.is(event?.command, testCmd);
    assert.is(event?.code, 0);
    assert.is(event?.issue, 1);
    assert.type(event?.duration_ms, 'number');
    // The suite's output is in baseline.err, not in the narration.
    assert.match(readFileSync(join(repo, '.tdd', 'baseline.err'), 'utf8'), 'naïve $HOME `id` "q"');
    const second = await runTdd({ ...options, planFile: undefined });
    assert.is(second.code, 0, JSON.stringify(second.bail));
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
    assert.equal(
      suites(repo).map((e) => e.phase),
      ['baseline', 'red', 'green', 'refactor'],
    );
  },
);

baseline(
  'a resumed run with another test command runs the trees again: a passed tree counts only with its own command',
  async () => {
    const repo = makeProject();
    const agents = commandAgents(slugSteps([TITLE]));
    requestStop(join(repo, '.tdd/stop'), 'at-ledger');
    const options = {
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: planFile([TITLE]),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env: cleanEnv(),
    };
    assert.is((await runTdd(options)).code, 3);
    const second = await runTdd({ ...options, planFile: undefined, testCmd: `true && ${TEST_CMD}` });
    assert.is(second.code, 0, JSON.stringify(second.bail));
    // Red runs with its tests and, the baseline's tree being unknown to this command, in its copy without them.
    assert.equal(
      suites(repo).map((e) => e.phase),
      ['baseline', 'red', 'red', 'green', 'refactor'],
    );
  },
);

baseline(
  "a failing baseline: baseline-red quotes the suite's last lines, the event says its exit code, no branch is made",
  async () => {
    const repo = makeProject();
    writeRepoFile(
      repo,
      'test/broken.test.js',
      "import { test } from 'node:test';\ntest('broken', () => { throw new Error('already red'); });\n",
    );
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'broken');
    const agents = commandAgents(slugSteps([TITLE]));
    const testCmd = `${TEST_CMD}; code=$?; echo 'LAST LINE of the suite'; exit $code`;
    const result = await runTdd({
      cwd: repo,
      issue: 1,
      testCmd,
      planFile: planFile([TITLE]),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env: cleanEnv(),
    });
    assert.is(result.bail?.cause, 'baseline-red');
    assert.match(result.bail?.narration ?? '', /Its last lines:\n[\s\S]*LAST LINE of the suite$/);
    assert.not.match(result.bail?.narration ?? '', 'leap-verify: ground truth');
    assert.equal(
      suites(repo).map((e) => [e.phase, e.code, e.command]),
      [['baseline', 1, testCmd]],
    );
    assert.equal(
      readEvents(repo)
        .filter((e) => e.purpose === 'rerun')
        .map((e) => [e.phase, e.code]),
      [['baseline', 1]],
      'run twice: a test that failed once only would be flaky',
    );
    assert.is(git(repo, 'branch', '--list', 'leap/*'), '');
  },
);

baseline.run();
