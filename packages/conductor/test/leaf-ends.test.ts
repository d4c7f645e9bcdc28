// How a verifier leaf's end is read from its exit file (a stop that ends it, a signal veri did not send), and
// the undo of a leaf's state-folder edits where the user's own changes there must survive it.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, waitFor } from '@leap/test-utils';
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
  type StepEdits,
} from './helpers.js';

const ends = suite('runTdd: how leaves end');
ends.after.each(cleanupTempDirs);

const TITLE = 'Lowercase and join with dashes';
const options = (repo: string, file: string, env = cleanEnv()) => ({
  cwd: repo,
  issue: 1,
  testCmd: TEST_CMD,
  planFile: planFile([TITLE]),
  developer: 'dev',
  verifier: 'ver',
  agentsFile: file,
  env,
});

// The verifier leaf's pid once its supervisor wrote it (bounded: waitFor fails with a message after 15 s).
async function verifierPid(repo: string): Promise<number> {
  const file = join(repo, '.tdd/verify-red.pid');
  const text = await waitFor(() => {
    const found = existsSync(file) ? /leaf=(\d+)/.exec(readFileSync(file, 'utf8')) : null;
    return found === null ? undefined : found[1];
  }, 15_000);
  if (text === undefined) throw new Error(`no verifier leaf started within 15 s (${file})`);
  return Number(text);
}

ends(
  'a stop "now" ends the running verifier: exit 3, the leaf named; a verifier killed by someone else is killed-external, never relaunched',
  async () => {
    const repo = makeProject();
    const agents = commandAgents(slugSteps([TITLE]));
    const running = runTdd(options(repo, agents.file, cleanEnv({ VER_SLEEP_MS: '30000' })));
    await verifierPid(repo);
    writeRepoFile(repo, '.tdd/stop', 'now\n');
    const stopped = await running;
    assert.is(stopped.code, 3, JSON.stringify(stopped.bail));
    assert.match(stopped.stoppedAt ?? '', '(the running leaf verify-red was ended)');
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`]);

    const resumed = runTdd({ ...options(repo, agents.file, cleanEnv({ VER_SLEEP_MS: '30000' })), planFile: undefined });
    process.kill(await verifierPid(repo), 'SIGKILL');
    const killed = await resumed;
    assert.is(killed.code, 1);
    assert.is(killed.bail?.cause, 'killed-external');
    assert.match(killed.bail?.narration ?? '', 'The verifier leaf verify-red died of a signal veri did not send');
    assert.equal(
      readEvents(repo)
        .filter((e) => e.event === 'exit' && e.leaf === 'verify-red')
        .map((e) => e.status),
      ['killed-stop', 'killed-external'],
    );
  },
);

ends(
  'a leaf that deletes a tracked state file gets it back from HEAD; a state file the user deleted stays deleted when a leaf writes it again',
  async () => {
    const repo = makeProject();
    writeRepoFile(repo, '.tdd/notes.md', "the team's notes, committed\n");
    writeRepoFile(repo, '.tdd/issues/3.md', '# An old issue\n');
    git(repo, 'add', '.tdd');
    git(repo, 'commit', '-q', '-m', 'notes and an old issue');
    // The user removed the old issue without committing that: the run must not bring it back.
    rmSync(join(repo, '.tdd/issues/3.md'));
    const steps = slugSteps([TITLE]);
    const step = steps[TITLE] as StepEdits;
    step.red = {
      ...step.red!,
      delete: ['.tdd/notes.md'],
      extra: [{ path: '.tdd/issues/3.md', content: '# written by a leaf\n' }],
    };
    const agents = commandAgents(steps);
    // Unsandboxed: this is the conductor's recovery from a leaf that tampers, for a run with --sandbox off (sandboxed,
    // the same leaf is refused by the file system: sandboxed-run.test.ts).
    const result = await runTdd({ ...options(repo, agents.file), sandbox: 'off' });
    assert.is(result.code, 0, JSON.stringify(result.bail));
    assert.is(readFileSync(join(repo, '.tdd/notes.md'), 'utf8'), "the team's notes, committed\n");
    assert.not.ok(existsSync(join(repo, '.tdd/issues/3.md')));
    assert.is(git(repo, 'status', '--porcelain'), ' D .tdd/issues/3.md\n');
    assert.match(
      readFileSync(join(repo, '.tdd/issues/1.thread.md'), 'utf8'),
      'a leaf edited the state folder (.tdd/notes.md, .tdd/issues/3.md)',
    );
  },
);

ends.run();
