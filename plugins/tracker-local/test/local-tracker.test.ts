import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { createLocalTracker, parseLocalIssue, readLocalIssueFile } from '../src/index.js';

const ISSUE = `# Add a greeting

The CLI greets people.

## Acceptance criteria

- [ ] \`greet\` prints "hello"
  with a newline
- [x] \`greet NAME\` prints "hello NAME"

## Notes
- not a criterion
`;

function stateWithIssue(text = ISSUE, n = 3): string {
  const state = makeTempDir();
  mkdirSync(join(state, 'issues'));
  writeFileSync(join(state, 'issues', `${n}.md`), text);
  return state;
}

const tracker = suite('createLocalTracker');
tracker.after.each(cleanupTempDirs);

tracker('reads title, body and numbered criteria from .tdd/issues/N.md', async () => {
  const local = createLocalTracker({ stateDir: stateWithIssue() });
  assert.is(local.name, 'local');
  const issue = await local.readIssue(3);
  assert.is(issue.number, 3);
  assert.is(issue.title, 'Add a greeting');
  assert.ok(issue.body.startsWith('The CLI greets people.\n'));
  assert.equal(issue.criteria, [
    { index: 1, text: '`greet` prints "hello"', checked: false },
    { index: 2, text: '`greet NAME` prints "hello NAME"', checked: true },
  ]);
});

tracker('an ordered list numbers from 1 whatever it writes; no section means no criteria', async () => {
  const local = createLocalTracker({
    stateDir: stateWithIssue('\n#  Title with spaces ##\n## Acceptance criteria\n3. first\n7. [ ] second\n'),
  });
  const issue = await local.readIssue(3);
  assert.is(issue.title, 'Title with spaces');
  assert.equal(
    issue.criteria.map((c) => [c.index, c.text]),
    [
      [1, 'first'],
      [2, 'second'],
    ],
  );
  const bare = createLocalTracker({ stateDir: stateWithIssue('# T\nno criteria here\n') });
  assert.equal((await bare.readIssue(3)).criteria, []);
});

tracker('defaults to .tdd/ at the repository root', async () => {
  const repo = makeGitRepo();
  mkdirSync(join(repo, '.tdd', 'issues'), { recursive: true });
  writeFileSync(join(repo, '.tdd', 'issues', '1.md'), '# One\n');
  mkdirSync(join(repo, 'sub'));
  assert.is((await createLocalTracker({ cwd: join(repo, 'sub'), env: {} }).readIssue(1)).title, 'One');
});

tracker('a missing issue, a missing title and a bad number are clear errors', async () => {
  const state = stateWithIssue('\n\nno title\n');
  const local = createLocalTracker({ stateDir: state });
  await local.readIssue(9).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /no issue 9: .*issues\/9\.md does not exist/),
  );
  await local.readIssue(3).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /3\.md:3: expected a "# Title" line first, found "no title"/),
  );
  await local.readIssue(0).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /positive integer/),
  );
  writeFileSync(join(state, 'issues', '4.md'), '');
  await local.readIssue(4).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /4\.md:1: expected a "# Title" line first, found ""/),
  );
  mkdirSync(join(state, 'issues', '5.md'));
  await local.readIssue(5).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /EISDIR/),
  );
});

tracker('comment appends to the thread, creating it with a heading', async () => {
  const state = stateWithIssue();
  let t = 0;
  const local = createLocalTracker({ stateDir: state, now: () => new Date(Date.UTC(2030, 0, 1, 0, 0, t++)) });
  await local.comment(3, 'Red: PASS\n\n');
  await local.comment(3, "it's `done` $(x)");
  assert.is(
    readFileSync(join(state, 'issues', '3.thread.md'), 'utf8'),
    "# Thread of issue 3\n\n## 2030-01-01T00:00:00.000Z\n\nRed: PASS\n\n## 2030-01-01T00:00:01.000Z\n\nit's `done` $(x)\n",
  );
});

tracker('tickCriterion ticks criterion K in place and keeps every other byte', async () => {
  const state = stateWithIssue();
  const local = createLocalTracker({ stateDir: state });
  await local.tickCriterion(3, 1);
  assert.is(readFileSync(join(state, 'issues', '3.md'), 'utf8'), ISSUE.replace('- [ ] `greet`', '- [x] `greet`'));
  await local.tickCriterion(3, 2).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /already ticked/),
  );
  await local.tickCriterion(3, 5).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /3\.md:5: .* so no criterion 5/),
  );
});

tracker('openDraftPullRequest writes a local record and returns its file URL', async () => {
  const state = stateWithIssue();
  const local = createLocalTracker({ stateDir: state });
  const { url } = await local.openDraftPullRequest({
    title: 'Greeting',
    body: 'Closes #3\n',
    branch: 'leap/issue-3 x',
  });
  const file = fileURLToPath(url);
  assert.is(file, join(state, 'pull-requests', 'leap_issue-3_x.md'));
  assert.is(
    readFileSync(file, 'utf8'),
    '# Greeting\n\nState: draft\nBase: (the default branch)\nHead: leap/issue-3 x\n\n## Summary\n\nCloses #3\n',
  );
  const again = await local.openDraftPullRequest({
    title: "It's `$x`",
    body: 'Steps:\n- one\n\n',
    branch: 'leap/issue-3',
    base: 'main',
    issue: 3,
  });
  assert.is(fileURLToPath(again.url), join(state, 'issues', '3.pr.md'));
  assert.is(
    readFileSync(join(state, 'issues', '3.pr.md'), 'utf8'),
    "# It's `$x`\n\nState: draft\nBase: main\nHead: leap/issue-3\nIssue: 3\n\n## Summary\n\nSteps:\n- one\n",
  );
  assert.is(local.issueFile?.(3), join(state, 'issues', '3.md'));
  for (const title of ['', ' \t\n'])
    await local.openDraftPullRequest({ title, body: '', branch: 'b' }).then(
      () => assert.unreachable(),
      (e: Error) => assert.match(e.message, /non-empty title and branch/),
    );
  assert.not.ok(existsSync(join(state, 'pull-requests', 'b.md')), 'a refused pull request writes nothing');
});

tracker.run();

// ---

const parse = suite('parseLocalIssue');

parse('reads a byte-order mark and CRLF endings; the number is kept', () => {
  const issue = parseLocalIssue('\ufeff# Title\r\n\r\nBody\r\n## Acceptance criteria\r\n- [ ] one\r\n', 'f.md', 12);
  assert.is(issue.number, 12);
  assert.is(issue.title, 'Title');
  assert.is(issue.body, 'Body\r\n## Acceptance criteria\r\n- [ ] one\r\n');
  assert.equal(issue.criteria, [{ index: 1, text: 'one', checked: false }]);
});

parse('a level-2 heading or an empty title is not a title', () => {
  assert.throws(
    () => parseLocalIssue('## Not a title\n', 'f.md', 1),
    /f\.md:1: expected a "# Title" line first, found "## Not a title"/,
  );
  assert.throws(() => parseLocalIssue('#\n', 'f.md', 1), /found "#"/);
});

parse.run();

// ---

const readFile = suite('readLocalIssueFile');
readFile.after.each(cleanupTempDirs);

readFile('reads a file by path', () => {
  const state = stateWithIssue();
  assert.is(readLocalIssueFile(join(state, 'issues', '3.md'), 3).title, 'Add a greeting');
  assert.throws(() => readLocalIssueFile(join(state, 'issues', '8.md'), 8), /no issue 8/);
});

readFile.run();

// ---
const clean = suite('the local tracker keeps git status clean');
clean.after.each(cleanupTempDirs);

clean(
  'a thread and a draft pull request in a repository: the state folder gets its .gitignore, git status shows nothing',
  async () => {
    const repo = makeGitRepo();
    const tracker = createLocalTracker({ cwd: repo, env: {} });
    await tracker.comment(5, 'red: PASS');
    await tracker.openDraftPullRequest({
      title: 'Issue 5',
      body: 'summary',
      branch: 'leap/issue-5',
      base: 'main',
      issue: 5,
    });
    await tracker.openDraftPullRequest({ title: 'No issue', body: 'summary', branch: 'leap/x' });
    assert.ok(existsSync(join(repo, '.tdd', '.gitignore')));
    assert.is(git(repo, 'status', '--porcelain'), '');
  },
);

clean.run();
