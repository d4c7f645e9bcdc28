// Ground truth's red check on real projects (vitest 3 with a vitest.config.ts, jest, pytest in a virtual
// environment, Go, cargo), the repository in /tmp and the sandbox on: the check runs the suite in the user's tree
// and again in its scratch copy with the new tests set aside, where every link it makes must resolve inside the
// sandbox (issue 44, break 2) and what the suite writes stays in the copy.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '@leap/test-utils';
import { RUNNERS, commitRed, makeProject } from '../../supervise/test/real-projects.js';
import { checkGroundTruth, chooseSandbox, findStepTests } from '../src/index.js';
import { verifyEnv } from './helpers.js';

const made: string[] = [];
const red = suite("ground truth's red check on real projects in /tmp, sandboxed");
red.after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

for (const runner of RUNNERS) {
  red(`${runner}: the suite fails with the new test and passes in the scratch copy without it`, async () => {
    const base = mkdtempSync(join(tmpdir(), `leap-truth-${runner}-`));
    made.push(base);
    const repo = join(base, 'repo');
    const home = join(base, 'home');
    mkdirSync(home);
    const testCmd = makeProject(runner, repo);
    mkdirSync(join(repo, '.tdd'));
    const files = commitRed(runner, repo);
    const tests = findStepTests({
      phase: 'red',
      repo,
      step: 'subtracts',
      issue: 1,
      eventsFile: join(repo, '.tdd', 'events.jsonl'),
    });
    assert.equal(tests.files, files);
    const env = verifyEnv({ HOME: home, VERI_TEST_CMD: testCmd });
    const suiteLog = join(base, 'suite.log');
    const truth = await checkGroundTruth({
      phase: 'red',
      repo,
      stateDir: join(repo, '.tdd'),
      testCmd,
      tests,
      env,
      sandbox: chooseSandbox('on', process.env),
      suiteLog,
    });
    assert.ok(truth.ok, `${truth.reason}\n${existsSync(suiteLog) ? readFileSync(suiteLog, 'utf8') : ''}`);
    assert.match(truth.reason, 'passes without them');
    assert.is(git(repo, 'status', '--porcelain'), '');
  });
}

red.run();
