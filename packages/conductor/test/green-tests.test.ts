// Green may change no test file present at the red commit: one that deletes another test, or rewrites the
// step's own, is rejected by the conductor's ground truth with the files named, before any verifier is asked.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git } from '@leap/test-utils';
import { runTdd } from '../src/index.js';
import {
  TEST_CMD,
  cleanEnv,
  commandAgents,
  makeProject,
  planFile,
  readLog,
  slugSteps,
  subjects,
  type StepEdits,
} from './helpers.js';

const green = suite('runTdd: green keeps the tests');
green.after.each(cleanupTempDirs);

const TITLE = 'Lowercase and join with dashes';

green(
  "a green that deletes another test file and rewrites the step's own is rejected, files named; its revision that restores them lands",
  async () => {
    const repo = makeProject();
    const steps = slugSteps([TITLE]);
    const step = steps[TITLE] as StepEdits;
    const red = step.red!;
    // The cheat: the step's test rewritten to pass whatever the code does, and the smoke test removed.
    step.green = {
      ...step.green!,
      extra: [{ path: red.path, content: "import { test } from 'node:test';\ntest('nothing', () => {});\n" }],
      delete: ['test/smoke.test.js'],
    };
    // The revision puts both back as they were (a sandboxed leaf cannot run `git checkout`: .git is read-only).
    step['green-2'] = {
      ...step.green,
      extra: [
        { path: 'test/smoke.test.js', content: readFileSync(join(repo, 'test', 'smoke.test.js'), 'utf8') },
        { path: red.path, content: red.content },
      ],
      delete: [],
    };
    const agents = commandAgents(steps);
    const result = await runTdd({
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: planFile([TITLE]),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env: cleanEnv(),
    });
    assert.is(result.code, 0, JSON.stringify(result.bail));
    assert.equal(
      result.verdicts.map((v) => `${v.phase} ${v.verdict}`),
      ['red PASS', 'green REJECT', 'green PASS', 'refactor PASS'],
    );
    const rejected = result.verdicts[1]?.reason ?? '';
    assert.match(
      rejected,
      /^ground truth: the green phase changed or removed test files present at the red commit [0-9a-f]{12}: test\/smoke\.test\.js, test\/step1\.test\.js$/,
    );
    // Logged as every verdict is (the report and `leap status` read it), the commit judged named.
    const logged = readFileSync(join(repo, '.tdd/events.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"event":"verdict"'))
      .map((l) => JSON.parse(l) as { phase: string; verdict: string; reason: string; commit?: string; step: string });
    assert.equal(
      logged.map((e) => `${e.phase} ${e.verdict}`),
      ['red PASS', 'green REJECT', 'green PASS', 'refactor PASS'],
    );
    assert.equal(
      [logged[1]?.reason, logged[1]?.step, /^[0-9a-f]{40}$/.test(logged[1]?.commit ?? '')],
      [rejected, TITLE, true],
    );
    // The verifier was asked only about the revision: the cheat never reached it.
    assert.is(readLog(agents.verLog).filter((l) => l.env.LEAP_PHASE === 'green').length, 1);
    // The developer's revision was told why.
    assert.match(
      readLog(agents.devLog).find((l) => l.env.LEAP_PHASE === 'green' && l.env.LEAP_ATTEMPT === '2')?.prompt ?? '',
      'test/smoke.test.js',
    );
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
    assert.is(git(repo, 'diff', '--name-status', 'HEAD~2', 'HEAD~1', '--', 'test'), '');
  },
);

green.run();
