// A run that ends mid-phase (a bail or a stop thrown inside a launch or a phase) keeps, in its result, the
// verdicts and leaves of the phases before and of the phase it ended in, in the order they came: each phase
// returns what it gathered, and an ending thrown mid-phase carries what the phase had gathered so far.
import { chmodSync, copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, makeTempDir, waitFor } from '@leap/test-utils';
import { runTdd } from '../src/index.js';
import {
  IMPL1,
  REFACTORED1,
  TEST1,
  cleanEnv,
  fixture,
  makeProject,
  pass,
  reject,
  scriptedAgents,
  stepMoves,
  oneStepRun,
} from './helpers.js';

const midPhase = suite('runTdd: an end mid-phase keeps what the phase gathered');
midPhase.after.each(cleanupTempDirs);

const options = oneStepRun;
const said = (result: { verdicts: { phase: string; verdict: string; reason: string }[] }) =>
  result.verdicts.map((v) => `${v.phase} ${v.verdict}: ${v.reason}`);

midPhase('a revision-budget bail at green keeps the red verdict and both green verdicts, and every leaf', async () => {
  const repo = makeProject();
  const [red, green] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
  const agents = scriptedAgents([red!, green!, green!], [pass('red ok'), reject('first no'), reject('second no')]);
  const result = await runTdd(options(repo, agents.file, { revisions: 1 }));
  assert.is(result.bail?.cause, 'revision-budget');
  assert.equal(said(result), ['red PASS: red ok', 'green REJECT: first no', 'green REJECT: second no']);
  // develop-red, verify-red, develop-green, verify-green, develop-green-2, verify-green.
  assert.is(result.leaves, 6);
});

midPhase('a cost-budget bail thrown by the launch of develop-red counts that leaf', async () => {
  const repo = makeProject();
  const dir = makeTempDir();
  const claude = join(dir, 'claude');
  copyFileSync(fixture('fake-claude.mjs'), claude);
  chmodSync(claude, 0o755);
  const ver = scriptedAgents([], [pass()]);
  const file = join(dir, 'agents.json');
  writeFileSync(
    file,
    JSON.stringify({
      agents: {
        dev: { plugin: 'claude', bin: claude, pass_env: ['FAKE_CLAUDE'] },
        ver: { plugin: 'scripted', script: join(ver.dir, 'ver.json') },
      },
    }),
  );
  const result = await runTdd(options(repo, file, { maxCost: 0.5, env: cleanEnv({ FAKE_CLAUDE: 'cost' }) }));
  assert.is(result.bail?.cause, 'cost-budget');
  assert.equal(result.verdicts, []);
  assert.is(result.leaves, 1);
});

midPhase('a commit-refused bail at the red commit counts develop-red', async () => {
  const repo = makeProject();
  writeFileSync(
    join(repo, '.git/hooks/pre-commit'),
    '#!/bin/sh\ngit diff --cached --name-only | grep -q step1 && exit 1\nexit 0\n',
  );
  chmodSync(join(repo, '.git/hooks/pre-commit'), 0o755);
  const agents = scriptedAgents(stepMoves(1, TEST1, IMPL1, REFACTORED1), []);
  const result = await runTdd(options(repo, agents.file));
  assert.is(result.bail?.cause, 'commit-refused');
  assert.equal(result.verdicts, []);
  assert.is(result.leaves, 1);
});

midPhase('a planner whose answer is no plan: the bail counts the plan leaf', async () => {
  const repo = makeProject();
  const agents = scriptedAgents([], [], [{ answer: 'I would rather not.' }]);
  const result = await runTdd(options(repo, agents.file, { planFile: undefined, planner: 'plan' }));
  assert.is(result.bail?.cause, 'agent-failed');
  assert.equal(result.verdicts, []);
  assert.is(result.leaves, 1);
});

midPhase(
  'an at-leaf stop before verify-red keeps develop-red; one before verify-green keeps the red phase and develop-green',
  async () => {
    for (const [waitOn, where, verdicts, leaves] of [
      [0, 'before verify-red', [], 1],
      [1, 'before verify-green', ['red PASS: red ok'], 3],
    ] as const) {
      const repo = makeProject();
      const moves = stepMoves(1, TEST1, IMPL1, REFACTORED1) as Record<string, unknown>[];
      moves[waitOn] = { ...moves[waitOn], wait_for: 'go' };
      const agents = scriptedAgents(moves, [pass('red ok'), pass(), pass()]);
      const running = runTdd(options(repo, agents.file));
      const pid = join(repo, `.tdd/develop-${waitOn === 0 ? 'red' : 'green'}.pid`);
      await waitFor(() => existsSync(pid) && /leaf=/.test(readFileSync(pid, 'utf8')), 120_000, `${pid} names its leaf`);
      writeFileSync(join(repo, '.tdd/stop'), 'at-leaf\n');
      writeFileSync(join(agents.dir, 'dev.json.state', 'go'), '');
      const result = await running;
      assert.is(result.outcome, 'stopped');
      assert.match(result.stoppedAt ?? '', where);
      assert.equal(said(result), verdicts);
      assert.is(result.leaves, leaves);
    }
  },
);

midPhase.run();
