// A tracker whose issue is not a repository file (GitHub's kind): criteria ticked through it after each
// refactor commit, every phase narrated on its thread, the draft pull request opened with base and head.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git } from '@leap/test-utils';
import type { DraftPullRequest, TrackerIssue, TrackerPlugin } from '@leap/core';
import { runTdd } from '../src/index.js';
import { TEST_CMD, cleanEnv, commandAgents, makeProject, planFile, slugSteps, subjects } from './helpers.js';

const remote = suite('runTdd: a remote tracker');
remote.after.each(cleanupTempDirs);

function memoryTracker(
  criteria: string[],
): TrackerPlugin & { calls: string[]; comments: string[]; prs: DraftPullRequest[] } {
  const issue: TrackerIssue = {
    number: 4,
    title: 'Remote `issue` with $x',
    body: `Body.\n\n## Acceptance criteria\n\n${criteria.map((c) => `- [ ] ${c}`).join('\n')}\n`,
    criteria: criteria.map((text, i) => ({ index: i + 1, text, checked: false })),
  };
  const calls: string[] = [];
  const comments: string[] = [];
  const prs: DraftPullRequest[] = [];
  return {
    name: 'memory',
    calls,
    comments,
    prs,
    readIssue: async (n) => {
      if (n !== 4) throw Object.assign(new Error(`no issue ${n}`), { exitCode: 2 });
      return structuredClone(issue);
    },
    comment: async (_n, text) => {
      comments.push(text);
    },
    tickCriterion: async (_n, k) => {
      calls.push(`tick ${k} after ${comments.filter((c) => c.startsWith('refactor commit')).length} refactor commits`);
      const c = issue.criteria[k - 1];
      if (c !== undefined) c.checked = true;
    },
    openDraftPullRequest: async (pr) => {
      prs.push(pr);
      return { url: 'https://example.invalid/pr/1' };
    },
  };
}

remote(
  'each criterion is ticked through the tracker right after its refactor commit; the PR names base, head and issue',
  async () => {
    const repo = makeProject(['x'], 1);
    const titles = ['First', 'Second'];
    const agents = commandAgents(slugSteps(titles));
    const tracker = memoryTracker(['one', 'two']);
    const result = await runTdd({
      cwd: repo,
      issue: 4,
      testCmd: TEST_CMD,
      planFile: planFile(titles),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      tracker,
      env: cleanEnv(),
    });
    assert.is(result.code, 0, JSON.stringify(result.bail));
    assert.equal(tracker.calls, ['tick 1 after 1 refactor commits', 'tick 2 after 2 refactor commits']);
    assert.equal(
      tracker.prs.map((p) => [p.branch, p.base, p.issue, p.title]),
      [['leap/issue-4', 'main', 4, 'Remote `issue` with $x (issue #4)']],
    );
    assert.is(result.pullRequest?.url, 'https://example.invalid/pr/1');
    assert.ok(tracker.comments.some((c) => c.startsWith('verdict green: PASS')));
    assert.is(subjects(repo).length, 7);
  },
);

remote.run();

// ---

const local = suite('runTdd: the local tracker');
local.after.each(cleanupTempDirs);

local('an issue file git ignores is ticked in place and never staged; the run still ends done', async () => {
  const repo = makeProject();
  // The user's own state-folder .gitignore, which leaves issue bodies out.
  writeFileSync(join(repo, '.tdd', '.gitignore'), '*\n!.gitignore\n!issue-*.md\n');
  git(repo, 'rm', '-q', '--cached', '.tdd/issues/1.md');
  git(repo, 'add', '.tdd/.gitignore');
  git(repo, 'commit', '-q', '-m', 'issues stay local');
  const titles = ['Only step'];
  const agents = commandAgents(slugSteps(titles));
  const result = await runTdd({
    cwd: repo,
    issue: 1,
    testCmd: TEST_CMD,
    planFile: planFile(titles),
    developer: 'dev',
    verifier: 'ver',
    agentsFile: agents.file,
    env: cleanEnv(),
  });
  assert.is(result.code, 0, JSON.stringify(result.bail));
  assert.equal(subjects(repo), ['plan: issue 1', 'red: Only step', 'green: Only step', 'refactor: Only step']);
  assert.match(readFileSync(join(repo, '.tdd', 'issues', '1.md'), 'utf8'), '- [x] slugify lowercases the words');
  assert.is(git(repo, 'log', '--format=', '--name-only', 'main..HEAD', '--', '.tdd/issues/1.md'), '');
  assert.is(git(repo, 'status', '--porcelain'), '');
});

local.run();
