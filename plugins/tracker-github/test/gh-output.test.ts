import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { GhError, classifyGhFailure, createGithubTracker, parseGhIssue, runGh } from '../src/index.js';

function thrown(fn: () => unknown): GhError {
  try {
    fn();
  } catch (error) {
    assert.instance(error, GhError);
    return error as GhError;
  }
  throw new Error('expected a GhError');
}

// ---
const parse = suite('parseGhIssue');

parse('reads what gh prints, a deleted author as ghost', () => {
  const issue = parseGhIssue(
    '{"body":"## Acceptance criteria\\n1. [ ] one\\n","comments":[{"author":null,"body":"x"},{"author":{"login":"a"},"body":"y","createdAt":"t"}],"number":2,"title":"T"}\n',
    2,
  );
  assert.equal(issue.criteria, [{ index: 1, text: 'one', checked: false }]);
  assert.equal(issue.comments, [
    { author: 'ghost', body: 'x', createdAt: '' },
    { author: 'a', body: 'y', createdAt: 't' },
  ]);
  assert.equal(parseGhIssue('{"body":"","number":2,"title":"T"}', 2).comments, []);
  assert.equal(parseGhIssue('{"body":"","comments":[{}],"number":2,"title":"T"}', 2).comments, [
    { author: 'ghost', body: '', createdAt: '' },
  ]);
});

parse("what is not gh's JSON for that issue is an error that shows it", () => {
  assert.match(
    thrown(() => parseGhIssue('Warning: oops', 2)).message,
    'gh issue view 2 printed no JSON: "Warning: oops"',
  );
  assert.match(thrown(() => parseGhIssue('null', 2)).message, 'printed JSON without a number, title and body: "null"');
  assert.match(thrown(() => parseGhIssue('{"number":2,"title":"T"}', 2)).message, 'without a number, title and body');
  assert.match(
    thrown(() => parseGhIssue('{"body":"","number":3,"title":"T"}', 2)).message,
    'gh issue view 2 answered with issue 3',
  );
});

// ---
const classify = suite('classifyGhFailure');

classify('exit 4, bad credentials and HTTP 401 are a login problem; 404 is not-found; the rest failed', () => {
  assert.is(classifyGhFailure(['api', 'x'], { code: 4, stdout: '', stderr: '' }).kind, 'auth');
  assert.is(
    classifyGhFailure(['api', 'x'], {
      code: 1,
      stdout: '',
      stderr: 'HTTP 401: Bad credentials (https://api.github.com/graphql)',
    }).kind,
    'auth',
  );
  assert.is(
    classifyGhFailure(['api', 'x'], { code: 1, stdout: '', stderr: 'gh: Not Found (HTTP 404)' }).kind,
    'not-found',
  );
  const other = classifyGhFailure(['pr', 'create', '--draft'], {
    code: 1,
    stdout: '',
    stderr: 'none of the git remotes ... please use `gh auth login`',
  });
  assert.is(other.kind, 'failed');
  assert.is(other.exitCode, 1);
  assert.match(
    classifyGhFailure(['pr', 'create'], { code: null, stdout: '', stderr: '' }).message,
    'gh pr create exited on a signal: (gh printed nothing)',
  );
  assert.match(
    classifyGhFailure(['pr', 'create'], { code: 1, stdout: 'only stdout', stderr: '' }).message,
    'exited 1: only stdout',
  );
});

// ---
const spawnErrors = suite('runGh and git failures');
spawnErrors.after.each(cleanupTempDirs);

spawnErrors(
  'a gh that cannot be executed, and a folder that does not exist, are failures naming the cause',
  async () => {
    const dir = makeTempDir();
    try {
      await runGh(dir, ['issue', 'view'], { cwd: dir, env: process.env });
      assert.unreachable('ran');
    } catch (error) {
      assert.is((error as GhError).kind, 'failed');
      assert.match((error as Error).message, `could not run ${JSON.stringify(dir)}: spawn ${dir} EACCES`);
    }
    try {
      await createGithubTracker({ cwd: join(dir, 'gone'), env: process.env }).openDraftPullRequest({
        title: 't',
        body: '',
        branch: 'b',
      });
      assert.unreachable('ran');
    } catch (error) {
      assert.match((error as Error).message, /^could not run git: spawn git ENOENT/);
    }
  },
);

spawnErrors('a gh pr create that prints no URL is an error, not an empty URL', async () => {
  const repo = makeGitRepo();
  const remote = join(makeTempDir(), 'r.git');
  git(repo, 'init', '-q', '--bare', remote);
  git(repo, 'remote', 'add', 'origin', remote);
  const silent = join(makeTempDir(), 'gh');
  writeFileSync(silent, '#!/bin/sh\necho "Creating pull request" \nexit 0\n');
  chmodSync(silent, 0o755);
  try {
    await createGithubTracker({ cwd: repo, env: process.env, gh: silent }).openDraftPullRequest({
      title: 't',
      body: '',
      branch: 'main',
    });
    assert.unreachable('accepted');
  } catch (error) {
    assert.match((error as Error).message, 'gh pr create printed no pull request URL: "Creating pull request\\n"');
  }
});

parse.run();
classify.run();
spawnErrors.run();
