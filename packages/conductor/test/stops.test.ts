// Stop modes at their three granularities, read before every launch; a stopped run exits 3, says where, and resumes.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, waitFor } from '@leap/test-utils';
import { readTddStatus, runTdd } from '../src/index.js';
import {
  IMPL1,
  REFACTORED1,
  TEST1,
  TEST_CMD,
  cleanEnv,
  commandAgents,
  makeProject,
  pass,
  planFile,
  readEvents,
  scriptedAgents,
  slugSteps,
  stepMoves,
  subjects,
} from './helpers.js';

const stops = suite('runTdd: stops');
stops.after.each(cleanupTempDirs);

const TITLES = ['First step', 'Second step'];

const waitForFile = (file: string, pattern: RegExp = /./) =>
  waitFor(() => existsSync(file) && pattern.test(readFileSync(file, 'utf8')), 120_000, `${file} to match ${pattern}`);
/** Let the developer's waiting move answer (its `wait_for` cue). */
const go = (agentsDir: string) => writeFileSync(join(agentsDir, 'dev.json.state', 'go'), '');

function twoStepMoves(waitOn: number): object[] {
  const moves = [
    ...stepMoves(1, TEST1, IMPL1, REFACTORED1),
    ...stepMoves(
      2,
      "test('drops punctuation', () => assert.equal(slugify(\"It's x!\"), 'its-x'));",
      "export function slugify(title) {\n  return title.toLowerCase().replace(/'/g, '').split(/[^\\p{L}\\p{N}]+/u).filter(Boolean).join('-');\n}\n",
      "export function slugify(title) {\n  return title.toLowerCase().replace(/'/g, '').split(/[^\\p{L}\\p{N}]+/u).filter(Boolean).join('-'); // done\n}\n",
    ),
  ] as Record<string, unknown>[];
  moves[waitOn] = { ...moves[waitOn], wait_for: 'go' };
  return moves;
}

stops('at-ledger finishes the step in flight, stops at the next boundary, and the run resumes to done', async () => {
  const repo = makeProject(['one', 'two']);
  const agents = scriptedAgents(twoStepMoves(1), [pass(), pass(), pass(), pass(), pass(), pass()]);
  const options = {
    cwd: repo,
    issue: 1,
    testCmd: TEST_CMD,
    planFile: planFile(TITLES),
    developer: 'dev',
    verifier: 'ver',
    agentsFile: agents.file,
    env: cleanEnv(),
  };
  const running = runTdd(options);
  await waitForFile(join(repo, '.tdd/develop-green.pid'), /leaf=/);
  const status = readTddStatus({ cwd: repo, env: cleanEnv(), issue: 1 })[0]!;
  assert.is(status.current?.step, 'First step');
  assert.is(status.current?.phase, 'green');
  assert.is(status.current?.stage, 'leaf');
  assert.equal(
    status.running.map((r) => r.leaf),
    ['develop-green'],
  );
  assert.is(status.conductor?.pid, process.pid);
  assert.is(status.lastVerdict?.verdict, 'PASS');
  writeFileSync(join(repo, '.tdd/stop'), 'at-ledger\n');
  go(agents.dir);
  const result = await running;
  assert.is(result.code, 3);
  assert.is(result.outcome, 'stopped');
  assert.match(result.stoppedAt ?? '', 'at the start of step 2 "Second step"');
  assert.equal(subjects(repo), ['plan: issue 1', 'red: First step', 'green: First step', 'refactor: First step']);
  assert.is(existsSync(join(repo, '.tdd/stop')), false);
  const stopEvents = readEvents(repo)
    .filter((e) => e.event === 'stop')
    .map((e) => `${e.mode} ${e.action}`);
  assert.equal(stopEvents, ['at-ledger honoured', 'at-ledger cleared']);
  const resumed = await runTdd({ ...options, planFile: undefined });
  assert.is(resumed.code, 0, JSON.stringify(resumed.bail));
  assert.equal(subjects(repo).length, 7);
  assert.equal(
    resumed.commits.map((c) => c.subject),
    ['red: Second step', 'green: Second step', 'refactor: Second step'],
  );
});

stops(
  'at-leaf stops before the next leaf, mid-step; the resumed run verifies what was developed and ends as an uninterrupted one',
  async () => {
    const repo = makeProject(['one', 'two']);
    const agents = scriptedAgents(twoStepMoves(0), [pass(), pass(), pass(), pass(), pass(), pass()]);
    const options = {
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: planFile(TITLES),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env: cleanEnv(),
    };
    const running = runTdd(options);
    await waitForFile(join(repo, '.tdd/develop-red.pid'), /leaf=/);
    writeFileSync(join(repo, '.tdd/stop'), 'at-leaf\n');
    go(agents.dir);
    const result = await running;
    assert.is(result.code, 3);
    assert.match(result.stoppedAt ?? '', 'at step 1 "First step", before verify-red');
    assert.equal(subjects(repo), ['plan: issue 1', 'red: First step']);
    const resumed = await runTdd({ ...options, planFile: undefined });
    assert.is(resumed.code, 0, JSON.stringify(resumed.bail));
    assert.equal(subjects(repo), [
      'plan: issue 1',
      ...TITLES.flatMap((t) => [`red: ${t}`, `green: ${t}`, `refactor: ${t}`]),
    ]);
  },
);

stops('now ends the running leaf at once; the resumed run relaunches it from where it began', async () => {
  const repo = makeProject(['one', 'two']);
  const agents = commandAgents(slugSteps(TITLES));
  const options = {
    cwd: repo,
    issue: 1,
    testCmd: TEST_CMD,
    planFile: planFile(TITLES),
    developer: 'dev',
    verifier: 'ver',
    agentsFile: agents.file,
  };
  const running = runTdd({ ...options, env: cleanEnv({ DEV_SLEEP_MS: '30000', DEV_SLEEP_PHASE: 'green' }) });
  await waitForFile(join(repo, '.tdd/develop-green.pid'), /leaf=/);
  // Half its file written, it sleeps (fixtures/dev-agent.mjs).
  await waitForFile(join(agents.dir, 'green.sleeping'));
  const started = Date.now();
  writeFileSync(join(repo, '.tdd/stop'), 'now\n');
  const result = await running;
  assert.ok(Date.now() - started < 20_000, 'the 30 s leaf was not ended at once');
  assert.is(result.code, 3);
  assert.match(result.stoppedAt ?? '', 'before develop-green (the running leaf develop-green was ended)');
  assert.equal(
    readEvents(repo)
      .filter((e) => e.event === 'exit' && e.leaf === 'develop-green')
      .map((e) => e.status),
    ['killed-stop'],
  );
  // The killed leaf left half a file behind; the resumed run starts the leaf again from its start.
  assert.match(git(repo, 'status', '--porcelain'), 'src/step1.js');
  const resumed = await runTdd({ ...options, planFile: undefined, env: cleanEnv() });
  assert.is(resumed.code, 0, JSON.stringify(resumed.bail));
  assert.equal(subjects(repo), [
    'plan: issue 1',
    ...TITLES.flatMap((t) => [`red: ${t}`, `green: ${t}`, `refactor: ${t}`]),
  ]);
  assert.is(readFileSync(join(repo, 'src/step1.js'), 'utf8'), '// Step 1: First step\nexport const value = 1;\n');
});

stops('an unreadable stop request is read as at-ledger, and said', async () => {
  const repo = makeProject(['one', 'two']);
  const agents = scriptedAgents(twoStepMoves(0), [pass(), pass(), pass()]);
  const running = runTdd({
    cwd: repo,
    issue: 1,
    testCmd: TEST_CMD,
    planFile: planFile(TITLES),
    developer: 'dev',
    verifier: 'ver',
    agentsFile: agents.file,
    env: cleanEnv(),
  });
  await waitForFile(join(repo, '.tdd/develop-red.pid'), /leaf=/);
  writeFileSync(join(repo, '.tdd/stop'), 'please stop\n');
  go(agents.dir);
  const result = await running;
  assert.is(result.code, 3);
  assert.match(result.stoppedAt ?? '', 'step 2');
  assert.match(readFileSync(join(repo, '.tdd/issues/1.thread.md'), 'utf8'), 'The stop request is unreadable');
  assert.equal(subjects(repo).length, 4);
});

stops.run();
