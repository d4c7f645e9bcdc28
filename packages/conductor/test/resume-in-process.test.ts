// Resuming in process from what a killed conductor leaves: its lock, an orphaned leaf, its index.lock, a
// journal saying a leaf was running whose exit file says it finished; and a conductor signalled mid-leaf.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, isAlive, waitFor } from '@leap/test-utils';
import { runTdd } from '../src/index.js';
import { TEST_CMD, cleanEnv, commandAgents, makeProject, planFile, slugSteps, subjects } from './helpers.js';

const resume = suite('runTdd: resuming in process');
resume.after.each(cleanupTempDirs);

const TITLES = ['First step', 'Second step'];
const HISTORY = ['plan: issue 1', ...TITLES.flatMap((t) => [`red: ${t}`, `green: ${t}`, `refactor: ${t}`])];

// Until the leaf's pid file says it runs: bounded generously (a loaded machine is slow) and a failure, never a
// silent return that lets the TERM land in another leaf than the test means.
async function until(file: string, pattern: RegExp): Promise<void> {
  const seen = await waitFor(
    () => (existsSync(file) && pattern.test(readFileSync(file, 'utf8'))) || undefined,
    120_000,
  );
  if (seen !== true) throw new Error(`${file} did not say ${pattern} within 120 s`);
}

resume(
  'after a dead conductor: its orphan leaf ended, its index.lock gone, a leaf it saw finish used as is',
  async () => {
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
    // develop-red sleeps until the test's cue (fixtures/dev-agent.mjs): the stop is asked while it runs.
    const running = runTdd({ ...options, env: cleanEnv({ DEV_SLEEP_MS: '120000', DEV_SLEEP_PHASE: 'red' }) });
    await until(join(repo, '.tdd/develop-red.pid'), /leaf=/);
    writeFileSync(join(repo, '.tdd/stop'), 'at-leaf\n');
    writeFileSync(join(agents.dir, 'go'), '');
    const stopped = await running;
    assert.is(stopped.code, 3);
    // Make it look as a conductor (pid 999999) killed right after develop-red exited, before it recorded that.
    const journalFile = join(repo, '.tdd/issue-1-run.json');
    const journal = JSON.parse(readFileSync(journalFile, 'utf8'));
    writeFileSync(
      journalFile,
      JSON.stringify({
        ...journal,
        pid: 999999,
        stage: 'leaf',
        leaf: 'develop-red',
        tree: null,
        leaf_started: Date.now() - 60_000,
      }),
    );
    writeFileSync(join(repo, '.tdd/issue-1-conductor.pid'), '999999\n');
    const orphan = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
    writeFileSync(join(repo, '.tdd/develop-stray.pid'), `999999\nrun=zz\nleaf=${orphan.pid}\n`);
    writeFileSync(join(repo, '.git/index.lock'), '');
    const lines: string[] = [];
    const resumed = await runTdd({ ...options, planFile: undefined, env: cleanEnv(), progress: (l) => lines.push(l) });
    assert.is(resumed.code, 0, JSON.stringify(resumed.bail));
    assert.equal(subjects(repo), HISTORY);
    assert.match(lines.join('\n'), 'resuming after conductor 999999 died: ended 1 process of develop-stray');
    await waitFor(() => !isAlive(orphan.pid as number) || undefined);
    assert.is(existsSync(join(repo, '.git/index.lock')), false);
    // develop-red ran once: its finished work was used, not redone.
    assert.is(
      readFileSync(agents.devLog, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"LEAP_PHASE":"red"') && l.includes('First step')).length,
      1,
    );
  },
);

resume(
  "a stale exit file (older than the launch) is not taken for the leaf's: the leaf runs again from where it began",
  async () => {
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
    // develop-green sleeps until the test's cue (fixtures/dev-agent.mjs): the stop is asked while it runs.
    const running = runTdd({ ...options, env: cleanEnv({ DEV_SLEEP_MS: '120000', DEV_SLEEP_PHASE: 'green' }) });
    await until(join(repo, '.tdd/develop-green.pid'), /leaf=/);
    writeFileSync(join(repo, '.tdd/stop'), 'at-leaf\n');
    writeFileSync(join(agents.dir, 'go'), '');
    assert.is((await running).code, 3);
    const journalFile = join(repo, '.tdd/issue-1-run.json');
    const journal = JSON.parse(readFileSync(journalFile, 'utf8'));
    assert.is(journal.phase, 'green');
    writeFileSync(
      journalFile,
      JSON.stringify({ ...journal, stage: 'leaf', leaf: 'develop-green', tree: null, leaf_started: Date.now() }),
    );
    const old = new Date(Date.now() - 120_000);
    utimesSync(join(repo, '.tdd/develop-green.exit'), old, old);
    const resumed = await runTdd({ ...options, planFile: undefined, env: cleanEnv() });
    assert.is(resumed.code, 0, JSON.stringify(resumed.bail));
    assert.equal(subjects(repo), HISTORY);
    assert.is(
      readFileSync(agents.devLog, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"LEAP_PHASE":"green"') && l.includes('First step')).length,
      2,
    );
  },
);

resume('a TERM to the conductor while a leaf runs ends the leaf and stops the run (exit 3); it resumes', async () => {
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
  const running = runTdd({ ...options, env: cleanEnv({ DEV_SLEEP_MS: '20000', DEV_SLEEP_PHASE: 'refactor' }) });
  await until(join(repo, '.tdd/develop-refactor.pid'), /leaf=/);
  process.kill(process.pid, 'SIGTERM');
  const result = await running;
  assert.is(result.code, 3);
  assert.match(result.stoppedAt ?? '', 'the conductor was signalled; develop-refactor was ended');
  const resumed = await runTdd({ ...options, planFile: undefined, env: cleanEnv() });
  assert.is(resumed.code, 0, JSON.stringify(resumed.bail));
  assert.equal(subjects(repo), HISTORY);
});

resume.run();
