// Where the test suite's output goes during a run: verdict-PHASE.err, as the seed's launch line leaves it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, makeTempDir, runCommand, repoRoot } from '@leap/test-utils';
import {
  IMPL1,
  REFACTORED1,
  TEST1,
  TEST_CMD,
  cleanEnv,
  makeProject,
  pass,
  scriptedAgents,
  stepMoves,
} from './helpers.js';

const BIN = join(repoRoot, 'packages', 'cli', 'dist', 'bin', 'leap.cjs');
const log = suite("the suite's output during leap tdd run");
log.after.each(cleanupTempDirs);

log("each verification's suite runs land in verdict-PHASE.err, not in the conductor's narration", async () => {
  const repo = makeProject();
  const agents = scriptedAgents(stepMoves(1, TEST1, IMPL1, REFACTORED1), [
    pass('red ok'),
    pass('green ok'),
    pass('refactor ok'),
  ]);
  const plan = join(makeTempDir(), 'plan.txt');
  writeFileSync(plan, 'Slugify\nLowercase and join with dashes (criterion 1)\n');
  // Printed by the suite, never spelled out in the command itself (the narration names the command).
  const marker = 'SUITE-OUTPUT-MARKER';
  const ran = await runCommand(
    process.execPath,
    [
      BIN,
      'tdd',
      'run',
      '--issue',
      '1',
      '--test-cmd',
      `printf 'SUITE-%s-MARKER\\n' OUTPUT; ${TEST_CMD}`,
      '--plan',
      plan,
      '--developer',
      'dev',
      '--verifier',
      'ver',
      '--agents',
      agents.file,
    ],
    { cwd: repo, env: cleanEnv() },
  );
  assert.is(ran.code, 0, ran.stderr);
  assert.not.match(ran.stderr, marker, "no suite output on the conductor's stderr");
  assert.not.match(ran.stdout, marker, "no suite output on the conductor's stdout");
  for (const phase of ['red', 'green', 'refactor']) {
    const err = readFileSync(join(repo, '.tdd', `verdict-${phase}.err`), 'utf8');
    assert.match(err, `leap-verify: ground truth: running VERI_TEST_CMD in`);
    assert.match(err, marker);
  }
  // Red runs the suite once, with the new tests: the tree without them is the baseline's, which passed already
  // in this run and is not run twice (suite-runs.test.ts counts every phase's runs).
  assert.is(readFileSync(join(repo, '.tdd', 'verdict-red.err'), 'utf8').split(marker).length - 1, 1);
});

log.run();
