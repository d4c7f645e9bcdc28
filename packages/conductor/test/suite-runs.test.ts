// No tree is tested twice in one run (issue 24 section 8): red's check with its tests set aside is the
// previous tree (the baseline, or the previous step's refactor) plus nothing, which passed already, so it is
// not run again; a red commit that changes anything besides its tests is checked in its copy as before.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
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
  type StepEdits,
} from './helpers.js';

const runs = suite('runTdd: suite runs');
runs.after.each(cleanupTempDirs);

runs(
  'three counted runs a step (red, green, refactor) besides the baseline, canaries and reruns apart; a red that changes code too is checked in its copy',
  async () => {
    const TITLES = ['First step', 'Second step'];
    const repo = makeProject(['one', 'two']);
    const steps = slugSteps(TITLES);
    const second = steps['Second step'] as StepEdits;
    second.red = { ...second.red!, extra: [{ path: 'src/notes.js', content: 'export const notes = 1;\n' }] };
    const agents = commandAgents(steps);
    // Each run of the suite appends the folder it ran in: the user's tree or a copy.
    const count = join(makeTempDir('leap-count-'), 'runs');
    const testCmd = `pwd >> '${count.replace(/'/g, "'\\''")}'; ${TEST_CMD}`;
    // Unsandboxed: the count is kept in a file outside the tree, which a sandboxed suite run cannot write (its /tmp is
    // its own); what a sandboxed suite run reaches is sandboxed-run.test.ts's.
    const result = await runTdd({
      cwd: repo,
      issue: 1,
      testCmd,
      planFile: planFile(TITLES),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env: cleanEnv(),
      sandbox: 'off',
    });
    assert.is(result.code, 0, JSON.stringify(result.bail));
    assert.equal(subjects(repo), [
      'plan: issue 1',
      ...TITLES.flatMap((t) => [`red: ${t}`, `green: ${t}`, `refactor: ${t}`]),
    ]);
    const where = readFileSync(count, 'utf8')
      .trim()
      .split('\n')
      .map((dir) => (dir.endsWith('/tree') ? 'copy' : 'tree'));
    // The counted runs: baseline; step 1: red, green, refactor; step 2: red, its copy (src/notes.js is no test), green, refactor.
    const events = readEvents(repo).filter((e) => e.event === 'suite');
    assert.equal(
      events.filter((e) => e.purpose === undefined).map((e) => e.phase),
      ['baseline', 'red', 'green', 'refactor', 'red', 'red', 'green', 'refactor'],
    );
    // Beside them, of their own purpose: the baseline's second run on the tree; each green's and refactor's canary
    // run and each green's second run in a copy (the step's tests alone).
    const beside = events.filter((e) => e.purpose !== undefined).map((e) => `${e.phase} ${e.purpose}`);
    assert.equal(beside, [
      'baseline rerun',
      ...TITLES.flatMap(() => ['green canary', 'green rerun', 'refactor canary']),
    ]);
    assert.is(where.length, events.length);
    assert.is(where.filter((w) => w === 'copy').length, 1 + 3 * TITLES.length);
  },
);

runs.run();
