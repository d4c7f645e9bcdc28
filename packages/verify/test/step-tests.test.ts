import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { findRedVerdict, findStepTests, listFiles } from '../src/index.js';
import { makeRedRepo } from './helpers.js';

const find = suite('findStepTests');
find.after.each(cleanupTempDirs);

const events = (repo: string) => join(repo, '.tdd', 'events.jsonl');

find('red: the test files HEAD added or changed, and HEAD as the red commit', () => {
  const repo = makeRedRepo();
  writeFileSync(join(repo, 'src', 'greet.js'), 'export const greet = () => "hi!";\n');
  writeFileSync(join(repo, 'test', 'util.test.js'), 'process.exit(0); // changed\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'red 2');
  const head = git(repo, 'rev-parse', 'HEAD').trim();
  const tests = findStepTests({ phase: 'red', repo, step: 's', issue: 3, eventsFile: events(repo) });
  assert.equal(tests, { files: ['test/util.test.js'], source: 'red-commit', redCommit: head });
});

find('red on a root commit, and a red commit that adds no test file', () => {
  const repo = makeGitRepo({ files: { 'a.test.js': '', 'src/b.js': '' } });
  assert.equal(findStepTests({ phase: 'red', repo, step: 's', issue: null, eventsFile: events(repo) }).files, [
    'a.test.js',
  ]);
  writeFileSync(join(repo, 'src', 'b.js'), 'x');
  git(repo, 'commit', '-q', '-am', 'no test');
  assert.equal(findStepTests({ phase: 'red', repo, step: 's', issue: null, eventsFile: events(repo) }).files, []);
});

find("green and refactor: the tests of the step's red verdict; else every test file by convention", () => {
  const repo = makeRedRepo();
  const none = findStepTests({ phase: 'green', repo, step: 'greet returns hello', issue: 3, eventsFile: events(repo) });
  assert.equal(none, { files: ['test/greet.test.js', 'test/util.test.js'], source: 'conventions', redCommit: null });
  appendFileSync(
    events(repo),
    `${JSON.stringify({ event: 'verdict', phase: 'red', verdict: 'PASS', step: 'greet returns hello', issue: 3, commit: 'abc', tests: ['test/greet.test.js'] })}\n`,
  );
  const found = findStepTests({
    phase: 'refactor',
    repo,
    step: 'greet returns hello',
    issue: 3,
    eventsFile: events(repo),
  });
  assert.equal(found, { files: ['test/greet.test.js'], source: 'red-verdict', redCommit: 'abc' });
});

find('--tests globs name them; a glob matching nothing is a usage error', () => {
  const repo = makeRedRepo();
  writeFileSync(join(repo, 'check_greet.sh'), 'true\n');
  const named = findStepTests({
    phase: 'green',
    repo,
    step: 's',
    issue: 3,
    eventsFile: events(repo),
    globs: ['*.sh', 'test/greet*'],
  });
  assert.equal(named, { files: ['check_greet.sh', 'test/greet.test.js'], source: 'tests-option', redCommit: null });
  assert.is(
    findStepTests({ phase: 'red', repo, step: 's', issue: 3, eventsFile: events(repo), globs: ['*.sh'] }).redCommit,
    git(repo, 'rev-parse', 'HEAD').trim(),
  );
  assert.throws(
    () => findStepTests({ phase: 'red', repo, step: 's', issue: 3, eventsFile: events(repo), globs: ['nope/*'] }),
    /--tests "nope\/\*" matched no file/,
  );
});

find.run();

// ---

const list = suite('listFiles');
list.after.each(cleanupTempDirs);

list('tracked and untracked files, ignored ones left out', () => {
  const repo = makeGitRepo({ files: { '.gitignore': 'build/\n', 'a.js': '' } });
  mkdirSync(join(repo, 'build'));
  writeFileSync(join(repo, 'build', 'x.js'), '');
  writeFileSync(join(repo, 'new file.js'), '');
  assert.equal(listFiles(repo).sort(), ['.gitignore', 'a.js', 'new file.js']);
});

list.run();

// ---

const red = suite('findRedVerdict');
red.after.each(cleanupTempDirs);

red('the last PASS red verdict of the step with its commit and tests; other lines skipped', () => {
  const file = join(makeTempDir(), 'events.jsonl');
  assert.is(findRedVerdict(file, 's', 3), null);
  const line = (fields: Record<string, unknown>) =>
    `${JSON.stringify({ event: 'verdict', phase: 'red', verdict: 'PASS', step: 's', issue: 3, commit: 'c1', tests: ['t1'], ...fields })}\n`;
  writeFileSync(
    file,
    [
      line({}),
      line({ commit: 'c2', tests: ['t2'] }),
      line({ verdict: 'REJECT', commit: 'c3' }),
      line({ issue: 4, commit: 'c4' }),
      line({ step: 'other', commit: 'c5' }),
      line({ phase: 'green', commit: 'c6' }),
      line({ commit: undefined }),
      line({ tests: [1] }),
      '{"verdict" "red" torn',
    ].join(''),
  );
  assert.equal(findRedVerdict(file, 's', 3), { commit: 'c2', tests: ['t2'], counts: null });
  assert.equal(findRedVerdict(file, 's', null), { commit: 'c4', tests: ['t1'], counts: null });
  assert.throws(() => findRedVerdict(makeTempDir(), 's', 3), /EISDIR/);
});

red.run();
