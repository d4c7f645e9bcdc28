// Nothing of the user's is ever lost (CONTRACT section 9): an uncommitted issue file rides in the plan commit,
// a leaf's state-folder edits are undone to what was there before the leaf (never to HEAD for a file the user had),
// and a ledger deleted from the working copy comes back from HEAD.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git } from '@leap/test-utils';
import { requestStop } from '@leap/core';
import { runTdd } from '../src/index.js';
import {
  TEST_CMD,
  cleanEnv,
  commandAgents,
  makeProject,
  planFile,
  slugSteps,
  subjects,
  writeRepoFile,
  type StepEdits,
} from './helpers.js';

const users = suite("runTdd: the user's files");
users.after.each(cleanupTempDirs);

const TITLE = 'Lowercase and join with dashes';
const options = (repo: string, file: string) => ({
  cwd: repo,
  issue: 1,
  testCmd: TEST_CMD,
  planFile: planFile([TITLE]),
  developer: 'dev',
  verifier: 'ver',
  agentsFile: file,
  env: cleanEnv(),
});

/** The project with its issue file written by the user and never committed (as the tracker README says to). */
function uncommittedIssue(): { repo: string; issue: string } {
  const repo = makeProject();
  const issue = readFileSync(join(repo, '.tdd/issues/1.md'), 'utf8');
  git(repo, 'rm', '-q', '--cached', '.tdd/issues/1.md');
  git(repo, 'commit', '-q', '-m', "the issue is the user's, uncommitted");
  return { repo, issue };
}

users(
  "an uncommitted issue file is committed with the plan, by its own path; leaves that delete, rewrite or plant state files change nothing of the user's",
  async () => {
    const { repo, issue } = uncommittedIssue();
    // Another issue the user is writing, never committed: no leaf may remove or rewrite it.
    const notes = '# Next issue: "$HOME" `x` ü\n\n## Acceptance criteria\n\n- [ ] later\n';
    writeRepoFile(repo, '.tdd/issues/2.md', notes);
    const steps = slugSteps([TITLE]);
    const step = steps[TITLE] as StepEdits;
    step.red = { ...step.red!, delete: ['.tdd/issues/2.md', '.tdd/issues/1.md'] };
    step.green = {
      ...step.green!,
      extra: [
        { path: '.tdd/issues/1.md', content: '# rewritten by a leaf\n' },
        { path: '.tdd/issues/2.md', content: 'rewritten\n' },
      ],
    };
    step.refactor = {
      ...step.refactor!,
      extra: [{ path: '.tdd/issue-5.md', content: 'planted\n' }],
      git: [['add', '-A']],
    };
    const agents = commandAgents(steps);
    // Unsandboxed: this is the conductor's recovery from a leaf that tampers, for a run with --sandbox off (sandboxed,
    // the same leaf is refused by the file system: sandboxed-run.test.ts).
    const result = await runTdd({ ...options(repo, agents.file), sandbox: 'off' });
    assert.is(result.code, 0, JSON.stringify(result.bail));
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
    // The plan commit holds the issue file as the user wrote it; the refactor commit ticks it.
    assert.is(
      git(repo, 'show', 'main..HEAD', '--reverse', '--format=%s', '--name-only', '--', '.tdd/issues/1.md')
        .split('\n')
        .filter((l) => l !== '')[1],
      '.tdd/issues/1.md',
    );
    assert.is(
      git(repo, 'show', `${git(repo, 'rev-list', '--reverse', 'main..HEAD').split('\n')[0]}:.tdd/issues/1.md`),
      issue,
    );
    assert.is(readFileSync(join(repo, '.tdd/issues/1.md'), 'utf8'), issue.replace('- [ ]', '- [x]'));
    // The other issue is there, byte for byte, untracked, in no commit of the run.
    assert.is(readFileSync(join(repo, '.tdd/issues/2.md'), 'utf8'), notes);
    assert.is(git(repo, 'log', '--format=%s', 'main..HEAD', '--', '.tdd/issues/2.md'), '');
    assert.is(git(repo, 'status', '--porcelain'), '?? .tdd/issues/2.md\n');
    assert.not.ok(existsSync(join(repo, '.tdd/issue-5.md')));
    const thread = readFileSync(join(repo, '.tdd/issues/1.thread.md'), 'utf8');
    assert.match(thread, 'the issue file .tdd/issues/1.md was not committed as it is; the plan commit holds it');
    assert.match(thread, 'a leaf edited the state folder (.tdd/issues/1.md, .tdd/issues/2.md)');
    assert.match(thread, 'a leaf edited the state folder (.tdd/issue-5.md)');
  },
);

users(
  'a ledger deleted from the working copy while HEAD has it is restored from HEAD, and the run goes on',
  async () => {
    const repo = makeProject();
    const agents = commandAgents(slugSteps([TITLE]));
    requestStop(join(repo, '.tdd/stop'), 'at-ledger');
    const stopped = await runTdd(options(repo, agents.file));
    assert.is(stopped.code, 3);
    assert.equal(subjects(repo), ['plan: issue 1']);
    rmSync(join(repo, '.tdd/issue-1.md'));
    const lines: string[] = [];
    const result = await runTdd({ ...options(repo, agents.file), planFile: undefined, progress: (l) => lines.push(l) });
    assert.is(result.code, 0, JSON.stringify(result.bail));
    assert.ok(
      lines.includes('the ledger .tdd/issue-1.md was missing from the working copy; restored from HEAD'),
      lines.join('\n'),
    );
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
  },
);

users.run();
