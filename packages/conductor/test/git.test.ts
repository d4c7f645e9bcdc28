// The conductor's git (createGit) runs through core's runner: argv only, its environment, stdin, failures
// as core's GitError. One real repository for every case.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { GitError } from '@leap/core';
import { cleanupTempDirs, git, hostileTitles, makeGitRepo, suite } from '@leap/test-utils';
import { createGit, GIT_FAILURE_EXIT } from '../src/conductor.js';
import { cleanEnv } from './helpers.js';

const test = suite('createGit');
let repo = '';
test.before(() => {
  repo = makeGitRepo();
});
test.after(cleanupTempDirs);

test('a hostile title is one argv element, byte for byte; out trims; input reaches stdin', async () => {
  const run = await createGit(repo, cleanEnv());
  assert.is(run.cwd, repo);
  const [title] = hostileTitles(2).slice(1);
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  await run(['add', '--', 'a.txt']);
  await run(['commit', '-q', '-m', `red: ${title}`]);
  assert.is(await run.out(['log', '-1', '--format=%s']), `red: ${title}`);
  assert.is(git(repo, 'log', '-1', '--format=%s').trim(), `red: ${title}`);
  const blob = await run.out(['hash-object', '-w', '--stdin']);
  assert.ok(/^[0-9a-f]{40}$/.test(blob), blob);
  const piped = await run(['hash-object', '--stdin'], { input: 'a\n' });
  assert.is(piped.stdout.trim(), git(repo, 'rev-parse', 'HEAD:a.txt').trim());
  assert.is(piped.code, 0);
});

test("the environment given is git's: its author reaches the commit", async () => {
  const run = await createGit(repo, { ...cleanEnv(), GIT_AUTHOR_NAME: 'Dév $(x)' });
  await run(['commit', '-q', '--allow-empty', '-m', 'env']);
  assert.is(await run.out(['log', '-1', '--format=%an']), 'Dév $(x)');
});

test('a failure is a GitError with its args and stderr; allowFailure returns it instead', async () => {
  const run = await createGit(repo, cleanEnv());
  const ran = await run(['rev-parse', '--verify', '--quiet', 'refs/heads/no-such'], { allowFailure: true });
  assert.is(ran.code, 1);
  const error = await run(['checkout', '-q', 'no-such-branch']).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(error, GitError);
  const e = error as GitError;
  assert.equal(e.args, ['checkout', '-q', 'no-such-branch']);
  assert.is(e.cwd, repo);
  assert.ok(e.code !== null && e.code > 0);
  assert.match(e.stderr, /no-such-branch/);
  assert.match(e.message, /^git checkout failed \(exit \d+\)/);
  // A git failure mid-run is no bad input (exit 2: nothing touched): `leap tdd run` ends with 1.
  assert.is(e.exitCode, GIT_FAILURE_EXIT);
  assert.is(GIT_FAILURE_EXIT, 1);
});

test('git that cannot start in a folder that is gone is a GitError too', async () => {
  const run = await createGit(join(repo, 'gone'), cleanEnv());
  const error = await run(['status']).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(error, GitError);
  assert.is((error as GitError).code, null);
  assert.is((error as GitError).exitCode, 1);
});

test.run();
