import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hostileTitles } from '@leap/test-utils';
import { VERDICT_ANSWER_FORMAT, buildVerifyPrompt } from '../src/index.js';
import type { VerifyPromptInput } from '../src/index.js';

const input: VerifyPromptInput = {
  phase: 'green',
  stepTitle: 'greet returns hello',
  spec: '- [ ] greet() returns "hello"',
  tests: [{ path: 'test/greet.test.js', content: 'assert(greet() === "hello")\n' }],
  repoPath: '/srv/repo',
};

const build = suite('buildVerifyPrompt');

build('holds the phase, the step, the spec, the tests, the repository and the answer format', () => {
  const prompt = buildVerifyPrompt(input);
  for (const part of [
    'Phase: green',
    'Step: greet returns hello',
    'Repository: /srv/repo',
    '- [ ] greet() returns "hello"',
    '### test/greet.test.js',
    'assert(greet() === "hello")',
    VERDICT_ANSWER_FORMAT,
  ]) {
    assert.ok(prompt.includes(part), part);
  }
  assert.not.match(prompt, /Base commit/);
  assert.is(buildVerifyPrompt(input), prompt, 'the same inputs give the same prompt');
});

build('each phase asks its own question; refactor names its base commit', () => {
  const red = buildVerifyPrompt({ ...input, phase: 'red' });
  assert.match(red, /fails with these tests and passes again without them/);
  const refactor = buildVerifyPrompt({ ...input, phase: 'refactor', baseCommit: 'abc1234' });
  assert.match(refactor, /Base commit: abc1234/);
  assert.match(refactor, /`git diff abc1234`/);
  assert.match(refactor, /## Changes since the base commit \(`git diff abc1234`\)\n\(not gathered/);
  assert.not.match(buildVerifyPrompt(input), /Changes since the base commit/);
});

build('refactor carries the diff against its base, fenced, saying when it is empty or cut', () => {
  const diff = 'diff --git a/src/x.js b/src/x.js\n-const a = 1;\n+const a = 1; // ```\n';
  const whole = buildVerifyPrompt({
    ...input,
    phase: 'refactor',
    baseCommit: 'abc1234',
    baseDiff: { text: diff, cut: null },
  });
  assert.ok(whole.includes(`(\`git diff abc1234\`)\n\`\`\`\`\n${diff}\`\`\`\`\n\n## Answer`), whole);
  const empty = buildVerifyPrompt({
    ...input,
    phase: 'refactor',
    baseCommit: 'abc1234',
    baseDiff: { text: '', cut: null },
  });
  assert.match(empty, /`git diff abc1234`\)\n\(no change\)/);
  const cut = buildVerifyPrompt({
    ...input,
    phase: 'refactor',
    baseCommit: 'abc1234',
    baseDiff: { text: diff, cut: { shown: 60, total: 90000 } },
  });
  assert.match(
    cut,
    /\(cut here: the first 60 of 90000 bytes of the diff are shown; read the rest from the repository\)/,
  );
});

build('the base commit must be a hex sha, for refactor only: no prose can ride on it', () => {
  assert.throws(
    () => buildVerifyPrompt({ ...input, phase: 'refactor' }),
    /base commit as a hexadecimal sha \(--base SHA\), got null/,
  );
  assert.throws(
    () => buildVerifyPrompt({ ...input, phase: 'refactor', baseCommit: 'I changed the parser because' }),
    /hexadecimal sha/,
  );
  assert.throws(() => buildVerifyPrompt({ ...input, baseCommit: 'abc1234' }), /belongs to the refactor phase only/);
});

build('file content cannot close its fence; missing files and no tests are said plainly', () => {
  const prompt = buildVerifyPrompt({
    ...input,
    tests: [
      { path: 'a.md', content: 'x\n````\ny' },
      { path: 'gone.js', content: null },
    ],
  });
  assert.match(prompt, /`````\nx\n````\ny\n`````/);
  assert.match(prompt, /### gone\.js\n\(missing from the work tree\)/);
  assert.match(buildVerifyPrompt({ ...input, tests: [] }), /\(no test file\)/);
});

build('hostile titles arrive byte for byte', () => {
  for (const title of hostileTitles(20, 4))
    assert.ok(buildVerifyPrompt({ ...input, stepTitle: title }).includes(`Step: ${title}\n`));
});

build.run();
