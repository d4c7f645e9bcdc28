// Bad input: a clear message naming what was wrong, exit 2, nothing touched.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { runTdd, type TddRunOptions } from '../src/index.js';
import { TEST_CMD, cleanEnv, commandAgents, makeProject, planFile, repoFingerprint, writeRepoFile } from './helpers.js';

const bad = suite('runTdd: bad input');
bad.after.each(cleanupTempDirs);

async function refused(repo: string, options: Partial<TddRunOptions>, expected: RegExp): Promise<void> {
  const before = repoFingerprint(repo);
  const agents = commandAgents({});
  try {
    await runTdd({
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env: cleanEnv(),
      ...options,
    });
    assert.unreachable('accepted');
  } catch (error) {
    assert.match((error as Error).message, expected);
    assert.is((error as { exitCode?: number }).exitCode, 2, (error as Error).message);
  }
  // No commit, no branch, no file written, changed or removed (ignored ones and the state folder included).
  assert.is(repoFingerprint(repo), before);
  assert.is(git(repo, 'branch', '--list', 'leap/*'), '');
}

bad('an issue that does not exist', async () => {
  const repo = makeProject();
  await refused(repo, { issue: 7 }, /no issue 7: .*\.tdd\/issues\/7\.md does not exist/);
});

bad('an issue with no acceptance criteria', async () => {
  const repo = makeProject();
  writeRepoFile(repo, '.tdd/issues/2.md', '# Nothing to check\n\nJust words.\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'issue 2');
  await refused(repo, { issue: 2 }, /issue 2 has no acceptance criteria/);
});

bad('an uncommitted issue file with no criteria, and one beside it: both left as they were', async () => {
  const repo = makeProject();
  writeRepoFile(repo, '.tdd/issues/2.md', '# Nothing to check\n\nJust words: "$HOME" `x` ü.\n');
  writeRepoFile(repo, '.tdd/issues/3.md', "# The user's next issue\n");
  await refused(repo, { issue: 2 }, /issue 2 has no acceptance criteria/);
});

bad(
  'a criterion without a checkbox (an ordered list) is refused at once, file and line named, the issue file untouched',
  async () => {
    const repo = makeProject();
    writeRepoFile(
      repo,
      '.tdd/issues/4.md',
      '# Numbered\n\n## Acceptance criteria\n\n1. [ ] the first can be ticked\n2. the second cannot\n',
    );
    await refused(
      repo,
      { issue: 4 },
      /\.tdd\/issues\/4\.md:6: criterion 2 of issue 4 has no checkbox to tick \("the second cannot"\): write it as "- \[ \] the second cannot"/,
    );
  },
);

bad('a plan that leaves a criterion uncovered, or names one the issue lacks', async () => {
  const repo = makeProject(['one', 'two']);
  await refused(
    repo,
    { planFile: planFile(['Only one'], () => 1) },
    /plan\.txt: no step covers criterion 2 of issue 1/,
  );
  await refused(
    repo,
    { planFile: planFile(['A', 'B', 'C']) },
    /step "C" names criterion 3, but issue 1 has 2 acceptance criteria/,
  );
  await refused(repo, { planFile: join(makeTempDir(), 'missing.txt') }, /cannot read the plan file .*missing\.txt/);
});

bad('an unknown agent, a bad agents file', async () => {
  const repo = makeProject();
  await refused(
    repo,
    { developer: 'nobody' },
    /unknown agent "nobody": expected one of claude, codex, gemini, dev, ver/,
  );
  const file = join(makeTempDir(), 'agents.json');
  writeFileSync(file, '{"agents": {"x": {"plugin": "teleport"}}}');
  await refused(repo, { agentsFile: file, developer: 'x' }, /agents\.json: agent "x": expected "plugin" to be one of/);
});

bad("a verifier of the developer's model family, without --allow-same-family", async () => {
  const repo = makeProject();
  await refused(
    repo,
    { verifier: 'dev' },
    /the verifier "dev" is of the developer "dev"'s model family \(replayed\): a blind verification needs another family\. Choose one with --verifier NAME, or allow it with --allow-same-family/,
  );
});

bad('bad numbers and a folder that is no repository', async () => {
  const repo = makeProject();
  await refused(repo, { revisions: -1 }, /Expected --revisions to be a non-negative integer, got -1/);
  await refused(repo, { maxCost: Number.NaN }, /Expected --max-cost to be a non-negative number/);
  await refused(repo, { issue: 0 }, /Expected --issue to be a positive integer, got "0"/);
  const dir = makeTempDir();
  try {
    await runTdd({ cwd: dir, issue: 1 });
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, 'is not inside a git repository');
  }
});

bad('a second conductor on the same issue is refused while the first runs', async () => {
  const repo = makeProject();
  const agents = commandAgents({});
  const { tryLock } = await import('@leap/core');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(repo, '.tdd'), { recursive: true });
  const lock = tryLock(join(repo, '.tdd/issue-1-conductor.pid'));
  try {
    await runTdd({
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: planFile(['X']),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env: cleanEnv(),
    });
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, `another conductor is running issue 1 (pid ${process.pid}`);
  } finally {
    lock?.release();
  }
});

bad.run();
