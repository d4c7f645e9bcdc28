import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { git, cleanupTempDirs, hostileTitles, makeTempDir } from '@leap/test-utils';
import { GhError, createGithubTracker } from '../src/index.js';
import { makeGhWorld } from './helpers.js';

const HOSTILE = 'Add the user\'s "quoted" $(whoami) `date` \\ %s\ttab 🦀 שלום \u2028 <b>&amp;</b>';
const BODY = `Words with $HOME, \`id\` and it's "quoted".\r\n\r\n## Acceptance criteria\r\n\r\n- [ ] ${HOSTILE}\r\n- [x] second, done\r\n- [ ] third: café 中文\r\n\r\n## Notes\r\n- not a criterion\r\n`;
const issues = () => ({
  '7': {
    title: HOSTILE,
    body: BODY,
    comments: [{ author: 'octocat', body: 'first!\n$(x)', createdAt: '2026-11-30T10:00:00Z' }],
  },
});

async function rejects(promise: Promise<unknown>): Promise<GhError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, GhError);
    return error as GhError;
  }
  throw new Error('expected a GhError');
}

// ---
const read = suite('readIssue');
read.after.each(cleanupTempDirs);

read('asks gh for the issue as JSON and keeps title, body and thread byte for byte', async () => {
  const world = makeGhWorld(issues());
  const tracker = createGithubTracker({ cwd: world.repo, env: world.env, repo: 'acme/widgets' });
  assert.is(tracker.name, 'github');
  const issue = await tracker.readIssue(7);
  assert.is(issue.number, 7);
  assert.is(issue.title, HOSTILE);
  assert.is(issue.body, BODY);
  assert.equal(issue.criteria, [
    { index: 1, text: HOSTILE, checked: false },
    { index: 2, text: 'second, done', checked: true },
    { index: 3, text: 'third: café 中文', checked: false },
  ]);
  assert.equal(issue.comments, [{ author: 'octocat', body: 'first!\n$(x)', createdAt: '2026-11-30T10:00:00Z' }]);
  const [call] = world.calls();
  assert.equal(call?.argv, ['issue', 'view', '7', '--json=number,title,body,comments', '--repo=acme/widgets']);
  assert.is(call?.cwd, world.repo);
  assert.is(call?.env.GH_PROMPT_DISABLED, '1', 'gh never prompts from a run');
});

read('finds the repository from a github.com remote when no repo is given', async () => {
  const world = makeGhWorld(issues());
  git(world.repo, 'remote', 'set-url', 'origin', 'https://github.com/acme/widgets.git');
  const issue = await createGithubTracker({ cwd: world.repo, env: world.env }).readIssue(7);
  assert.is(issue.title, HOSTILE);
  assert.equal(world.calls()[0]?.argv, ['issue', 'view', '7', '--json=number,title,body,comments']);
});

read('an issue without an acceptance-criteria section has no criteria', async () => {
  const world = makeGhWorld({ '3': { title: 'plain', body: 'no list here' } });
  const issue = await createGithubTracker({ cwd: world.repo, env: world.env, repo: 'acme/widgets' }).readIssue(3);
  assert.equal(issue.criteria, []);
  assert.equal(issue.comments, []);
});

read("an issue that does not exist is a not-found error in gh's words (exit 2)", async () => {
  const world = makeGhWorld(issues());
  const error = await rejects(
    createGithubTracker({ cwd: world.repo, env: world.env, repo: 'acme/widgets' }).readIssue(99),
  );
  assert.is(error.kind, 'not-found');
  assert.is(error.exitCode, 2);
  assert.match(
    error.message,
    'no issue 99 on GitHub in acme/widgets: GraphQL: Could not resolve to an issue or pull request with the number of 99.',
  );
});

read('a bad issue number is refused before gh runs', async () => {
  const world = makeGhWorld(issues());
  const tracker = createGithubTracker({ cwd: world.repo, env: world.env });
  for (const bad of [0, -1, 1.5]) {
    try {
      await tracker.readIssue(bad);
      assert.unreachable('accepted');
    } catch (error) {
      assert.match((error as Error).message, /Expected issue to be a positive integer/);
    }
  }
  assert.equal(world.calls(), []);
});

read("a clone with no GitHub remote and no repo: gh's own message", async () => {
  const world = makeGhWorld(issues());
  const error = await rejects(createGithubTracker({ cwd: world.repo, env: world.env }).readIssue(7));
  assert.is(error.kind, 'failed');
  assert.is(error.exitCode, 1);
  assert.match(
    error.message,
    'gh issue view exited 1: none of the git remotes configured for this repository point to a known GitHub host',
  );
});

// ---
const missing = suite('a missing or signed-out gh');
missing.after.each(cleanupTempDirs);

missing('no gh on PATH is a clear error that says how to install it', async () => {
  const world = makeGhWorld(issues());
  const env = { ...world.env, PATH: makeTempDir() };
  const error = await rejects(createGithubTracker({ cwd: world.repo, env }).readIssue(7));
  assert.is(error.kind, 'missing');
  assert.is(error.exitCode, 2);
  assert.match(error.message, '"gh" is not on PATH: install it (https://cli.github.com) and run `gh auth login`');
});

missing("a gh that is not logged in (exit 4) says to log in, with gh's words", async () => {
  const world = makeGhWorld(issues(), { loggedOut: true });
  const tracker = createGithubTracker({ cwd: world.repo, env: world.env, repo: 'acme/widgets' });
  for (const call of [() => tracker.readIssue(7), () => tracker.comment(7, 'hi'), () => tracker.tickCriterion(7, 1)]) {
    const error = await rejects(call());
    assert.is(error.kind, 'auth');
    assert.is(error.code, 4);
    assert.match(
      error.message,
      /^gh is not logged in to GitHub: run `gh auth login` or set GH_TOKEN \(gh issue \w+ said: To get started with GitHub CLI/,
    );
  }
  assert.equal(world.state().issues['7']?.comments?.length, 1, 'nothing written');
  const issue = await createGithubTracker({
    cwd: world.repo,
    env: { ...world.env, GH_TOKEN: 'x' },
    repo: 'acme/widgets',
  }).readIssue(7);
  assert.is(issue.number, 7, 'GH_TOKEN is enough');
});

// ---
const comment = suite('comment');
comment.after.each(cleanupTempDirs);

comment('sends the text on stdin (--body-file -), byte for byte, for every hostile title', async () => {
  const world = makeGhWorld(issues());
  const tracker = createGithubTracker({ cwd: world.repo, env: world.env, repo: 'acme/widgets' });
  const texts = [
    ...hostileTitles(12),
    `Red: PASS\n\n> ${HOSTILE}\n\nline 3 $(rm -rf /)\r\nend`,
    '-m --step',
    '- [x] not a criterion',
  ];
  for (const text of texts) await tracker.comment(7, text);
  const thread = world
    .state()
    .issues['7']?.comments?.slice(1)
    .map((c) => c.body);
  assert.equal(thread, texts);
  const calls = world.calls();
  assert.equal(calls[0]?.argv, ['issue', 'comment', '7', '--body-file=-', '--repo=acme/widgets']);
  assert.equal(
    calls.map((c) => c.stdin),
    texts,
  );
});

comment('an empty comment is refused before gh runs', async () => {
  const world = makeGhWorld(issues());
  try {
    await createGithubTracker({ cwd: world.repo, env: world.env }).comment(7, ' \n');
    assert.unreachable('accepted');
  } catch (error) {
    assert.match((error as Error).message, 'Expected a comment with some text for issue 7, got " \\n"');
  }
  assert.equal(world.calls(), []);
});

// ---
const tick = suite('tickCriterion');
tick.after.each(cleanupTempDirs);

tick('reads the body, ticks the one box and writes the body back with gh issue edit --body-file -', async () => {
  const world = makeGhWorld(issues());
  const tracker = createGithubTracker({ cwd: world.repo, env: world.env, repo: 'acme/widgets' });
  await tracker.tickCriterion(7, 1);
  await tracker.tickCriterion(7, 3);
  const expected = BODY.replace(`- [ ] ${HOSTILE}`, `- [x] ${HOSTILE}`).replace('- [ ] third', '- [x] third');
  assert.is(world.state().issues['7']?.body, expected, 'every other byte kept, CRLF included');
  assert.is(world.state().issues['7']?.title, HOSTILE);
  const calls = world.calls();
  assert.equal(
    calls.map((c) => c.argv),
    [
      ['issue', 'view', '7', '--json=number,title,body', '--repo=acme/widgets'],
      ['issue', 'edit', '7', '--body-file=-', '--repo=acme/widgets'],
      ['issue', 'view', '7', '--json=number,title,body', '--repo=acme/widgets'],
      ['issue', 'edit', '7', '--body-file=-', '--repo=acme/widgets'],
    ],
  );
  assert.is(calls[3]?.stdin, expected);
  assert.equal(
    (await tracker.readIssue(7)).criteria.map((c) => c.checked),
    [true, true, true],
  );
});

tick(
  'a ticked criterion, one past the list, or a body with no criteria is an error, and gh edits nothing',
  async () => {
    const world = makeGhWorld({ ...issues(), '8': { title: 't', body: 'no criteria' } });
    const tracker = createGithubTracker({ cwd: world.repo, env: world.env, repo: 'acme/widgets' });
    const cases: [number, number, RegExp][] = [
      [7, 2, /GitHub issue 7:6: criterion 2 is already ticked/],
      [7, 4, /GitHub issue 7:3: "## Acceptance criteria" has 3 criteria, so no criterion 4/],
      [8, 1, /GitHub issue 8: no "## Acceptance criteria" section/],
    ];
    for (const [n, k, message] of cases) {
      try {
        await tracker.tickCriterion(n, k);
        assert.unreachable('accepted');
      } catch (error) {
        assert.match((error as Error).message, message);
      }
    }
    assert.ok(
      world.calls().every((c) => c.argv[1] === 'view'),
      'no edit was sent',
    );
    assert.is(world.state().issues['7']?.body, BODY);
  },
);

// ---
const pr = suite('openDraftPullRequest');
pr.after.each(cleanupTempDirs);

pr(
  'pushes the branch, opens a draft with the hostile title and body, and finds it again on a second call',
  async () => {
    const world = makeGhWorld(issues());
    git(world.repo, 'checkout', '-q', '-b', 'leap/issue-7');
    git(world.repo, 'commit', '-q', '--allow-empty', '-m', 'plan: issue 7');
    const tracker = createGithubTracker({ cwd: world.repo, env: world.env, repo: 'acme/widgets' });
    const body = `Steps:\n- [x] ${HOSTILE}\n\n$(whoami) \`id\`\r\n`;
    const first = await tracker.openDraftPullRequest({
      title: `issue 7: ${HOSTILE.replace('\u2028', '')}`,
      body,
      branch: 'leap/issue-7',
      base: 'main',
    });
    assert.is(first.url, 'https://github.com/acme/widgets/pull/8');
    assert.is(
      git(world.remote, 'rev-parse', 'refs/heads/leap/issue-7'),
      git(world.repo, 'rev-parse', 'HEAD'),
      'the branch is on the remote',
    );
    assert.is(
      git(world.repo, 'rev-parse', '--abbrev-ref', 'leap/issue-7@{upstream}').trim(),
      'origin/leap/issue-7',
      'pushed with -u',
    );
    const [pull] = world.state().pulls ?? [];
    assert.equal(pull, {
      number: 8,
      title: `issue 7: ${HOSTILE.replace('\u2028', '')}`,
      body,
      head: 'leap/issue-7',
      base: 'main',
      draft: true,
    });
    const create = world.calls().find((c) => c.argv[0] === 'pr');
    assert.equal(create?.argv, [
      'pr',
      'create',
      '--draft',
      '--base=main',
      '--head=leap/issue-7',
      `--title=issue 7: ${HOSTILE.replace('\u2028', '')}`,
      '--body-file=-',
      '--repo=acme/widgets',
    ]);
    assert.is(create?.stdin, body);

    git(world.repo, 'commit', '-q', '--allow-empty', '-m', 'red: more');
    const again = await tracker.openDraftPullRequest({
      title: 'issue 7, resumed',
      body: 'new summary',
      branch: 'leap/issue-7',
      base: 'main',
      issue: 7,
    });
    assert.is(again.url, first.url, 'the existing pull request of the branch');
    assert.is(
      git(world.remote, 'rev-parse', 'refs/heads/leap/issue-7'),
      git(world.repo, 'rev-parse', 'HEAD'),
      'and the new commit pushed',
    );
    assert.equal(world.calls().at(-1)?.argv, [
      'pr',
      'edit',
      first.url,
      '--title=issue 7, resumed',
      '--body-file=-',
      '--repo=acme/widgets',
    ]);
    assert.equal(
      world.state().pulls?.[0],
      {
        number: 8,
        title: 'issue 7, resumed',
        body: 'new summary\n\nCloses #7\n',
        head: 'leap/issue-7',
        base: 'main',
        draft: true,
      },
      'updated, and linked to its issue',
    );
    assert.is(world.state().pulls?.length, 1);
  },
);

pr("without a base, the tracker's base or gh's default branch; a title with a dash stays a title", async () => {
  const world = makeGhWorld(issues());
  git(world.repo, 'branch', 'leap/issue-7');
  const url = (
    await createGithubTracker({ cwd: world.repo, env: world.env, repo: 'acme/widgets' }).openDraftPullRequest({
      title: '--draft -m',
      body: '',
      branch: 'leap/issue-7',
    })
  ).url;
  assert.match(url, /\/pull\/8$/);
  assert.equal(world.calls()[0]?.argv, [
    'pr',
    'create',
    '--draft',
    '--head=leap/issue-7',
    '--title=--draft -m',
    '--body-file=-',
    '--repo=acme/widgets',
  ]);
  assert.is(world.state().pulls?.[0]?.title, '--draft -m');
  git(world.repo, 'branch', 'other');
  await createGithubTracker({
    cwd: world.repo,
    env: world.env,
    repo: 'acme/widgets',
    base: 'main',
  }).openDraftPullRequest({ title: 't', body: 'b', branch: 'other' });
  assert.ok(world.calls()[1]?.argv.includes('--base=main'));
  git(world.repo, 'branch', 'third');
  const tracker = createGithubTracker({ cwd: world.repo, env: world.env, repo: 'acme/widgets' });
  await tracker.openDraftPullRequest({ title: 't', body: '', branch: 'third', issue: 7 });
  await tracker.openDraftPullRequest({ title: 't', body: 'Fixes #7.', branch: 'third', issue: 7 });
  assert.equal(
    world
      .calls()
      .filter((c) => c.argv[0] === 'pr')
      .slice(-3)
      .map((c) => c.stdin),
    ['Closes #7\n', 'Fixes #7.', 'Fixes #7.'],
    'created, then updated (create refused, edit)',
  );
  assert.is(tracker.issueFile(7), null, 'the body lives on GitHub');
});

pr('hostile titles and bodies reach the pull request byte for byte', async () => {
  const world = makeGhWorld(issues());
  const tracker = createGithubTracker({ cwd: world.repo, env: world.env, repo: 'acme/widgets' });
  const titles = hostileTitles(8, 11);
  for (const [i, title] of titles.entries()) {
    git(world.repo, 'branch', `leap/issue-${i + 1}`);
    await tracker.openDraftPullRequest({
      title,
      body: `${title}\n\n${HOSTILE}\r\n`,
      branch: `leap/issue-${i + 1}`,
      base: 'main',
    });
  }
  assert.equal(
    world.state().pulls?.map((p) => [p.title, p.body]),
    titles.map((t) => [t, `${t}\n\n${HOSTILE}\r\n`]),
  );
});

pr("a branch that does not exist: git's words, and no pull request", async () => {
  const world = makeGhWorld(issues());
  const error = await rejects(
    createGithubTracker({ cwd: world.repo, env: world.env, repo: 'acme/widgets' }).openDraftPullRequest({
      title: 't',
      body: 'b',
      branch: 'leap/issue-9',
    }),
  );
  assert.is(error.kind, 'failed');
  assert.match(
    error.message,
    /git push --quiet -u origin refs\/heads\/leap\/issue-9:refs\/heads\/leap\/issue-9 exited 1: error: src refspec/,
  );
  assert.equal(world.calls(), [], 'gh was not asked');
});

pr('an empty or multi-line title, or an empty branch, is refused before anything runs', async () => {
  const world = makeGhWorld(issues());
  const tracker = createGithubTracker({ cwd: world.repo, env: world.env, repo: 'acme/widgets' });
  for (const [title, branch, message] of [
    [' ', 'b', /non-empty title and branch/],
    ['t', '', /non-empty title and branch/],
    ['a\nb', 'main', /a pull request title of one line, got "a\\nb"/],
  ] as const) {
    try {
      await tracker.openDraftPullRequest({ title, body: '', branch });
      assert.unreachable('accepted');
    } catch (error) {
      assert.match((error as Error).message, message);
    }
  }
  assert.equal(world.calls(), []);
});

pr('gh refusing the pull request is an error in its words', async () => {
  const world = makeGhWorld(issues());
  git(world.repo, 'branch', 'leap/issue-7');
  const error = await rejects(
    createGithubTracker({ cwd: world.repo, env: world.env, repo: 'acme/widgets' }).openDraftPullRequest({
      title: 't',
      body: 'b',
      branch: 'leap/issue-7',
      base: 'nope',
    }),
  );
  assert.match(error.message, 'gh pr create exited 1: pull request create failed: GraphQL: Base ref must be a branch');
});

read.run();
missing.run();
comment.run();
tick.run();
pr.run();
